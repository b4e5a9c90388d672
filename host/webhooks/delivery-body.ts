/**
 * The JSON body of a delivery (one `EventDelivery`: the event's uuid, name, attempt and payload as a string). Its
 * one definition is the SDK's (addon-sdk/server/webhook-body.ts), shared with the testing kit's `sendTestWebhook`.
 */
export { deliveryBody, type DeliveryBodyInput } from '@addon-kit/sdk/server';
