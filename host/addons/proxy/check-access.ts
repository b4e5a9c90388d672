/**
 * Step 5: may this person still use the add-on's OAuth application? The organization's `access_mode` (admins only,
 * specific people) is read with the call's person and installation (step 1's one statement; on the embedded
 * database the kept answer is dropped when the setting changes, migration 099), so a person an administrator
 * leaves out is refused at once on both sides — an integrator call included, whose token the integrator still
 * honours (a host-API call is refused by the host's own token check as well).
 *
 * This is where the host learns that the mode leaves an authorized person out: the first refusal marks the
 * authorization excluded and records the `addon.authorization.excluded` lifecycle event in the same transaction
 * (host/addons/lifecycle); later refusals find it marked and record nothing.
 */
import type { RequestHandler } from 'express';
import { AddonError } from '../addon-error.ts';
import { recordAddonLifecycleEvent } from '../lifecycle/index.ts';
import type { FetchProxyDeps } from './proxied-call.ts';
import { proxyCallOf } from './proxy-call.ts';

/** 403 `not_allowed` (host side) when the organization's access mode leaves the person out. */
export function checkAccess(deps: Pick<FetchProxyDeps, 'vault' | 'lifecycle'>): RequestHandler {
  return async (req, _res, next) => {
    const call = proxyCallOf(req);
    if (!call.accessRefused) return next();
    const { record, installation, person } = call;
    if (record && record.state !== 'uninitialized') {
      await deps.lifecycle.transaction(async (tx) => {
        const marked = await deps.vault.store.markExcluded(record.id, tx);
        if (!marked) return;
        await recordAddonLifecycleEvent(tx, deps.lifecycle.box, {
          name: 'addon.authorization.excluded',
          installation,
          personId: person.id,
          integratorSubject: marked.subject,
          occurredAt: new Date(),
        });
      });
    }
    throw new AddonError(
      403,
      'host_auth',
      'not_allowed',
      'Your organization no longer lets you use this add-on’s application; ask an organization administrator',
      false,
    );
  };
}
