/** A step that cannot go on, and the popup page that says so (pages.tsx). */
import type { ErrorRequestHandler } from 'express';
import type { HandshakeSide } from '@addon-kit/sdk/protocol';
import type { AuthorizationState } from '../authorizations/index.ts';
import { sendHandshakeFailure } from './pages.tsx';

/** Thrown by a step; rendered as the failure page by {@link renderStepFailure}. */
export class StepFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail: string,
    readonly installationId?: string,
    readonly state?: AuthorizationState,
    readonly side: HandshakeSide = 'host',
    /** The person chose Deny: the popup tells the opener and closes instead of offering a restart. */
    readonly declined = false,
    /** False when starting again cannot help (the organization refuses the person). */
    readonly restartable = true,
  ) {
    super(detail);
  }
}

/** The handshake router's error handler: a StepFailure becomes its page; anything else goes on. */
export function renderStepFailure(hostOrigin: string): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (!(error instanceof StepFailure)) return next(error);
    sendHandshakeFailure(res, {
      status: error.status,
      code: error.code,
      title: error.title,
      message: error.detail,
      hostOrigin,
      ...(error.installationId ? { installationId: error.installationId } : {}),
      ...(error.state ? { state: error.state } : {}),
      side: error.side,
      declined: error.declined,
      restartable: error.restartable,
    });
  };
}
