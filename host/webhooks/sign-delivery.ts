/**
 * The signature headers of a delivery, over the raw body (`X-PCO-Webhooks-Authenticity` and the Standard Webhooks
 * headers). Their one definition is the SDK's (`@addon-kit/sdk/server`, addon-sdk/server/webhook-signature.ts), so
 * the testing kit's `sendTestWebhook` signs exactly as the worker does.
 */
export {
  AUTHENTICITY_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  authenticitySignature,
  signDelivery,
  standardSignature,
  type SecretFormat,
  type SignInput,
} from '@addon-kit/sdk/server';
