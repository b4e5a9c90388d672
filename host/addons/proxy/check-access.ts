/**
 * Step 5: may this person still use the add-on's OAuth application? The organization's `access_mode` (admins only,
 * specific people) is read with the call's person and installation (step 1's one statement; on the embedded
 * database the kept answer is dropped when the setting changes, migration 099), so a person an administrator
 * leaves out is refused at once on both sides — an integrator call included, whose token the integrator still
 * honours (a host-API call is refused by the host's own token check as well).
 */
import type { RequestHandler } from 'express';
import { AddonError } from '../addon-error.ts';
import { proxyCallOf } from './proxy-call.ts';

/** 403 `not_allowed` (host side) when the organization's access mode leaves the person out. */
export const checkAccess: RequestHandler = (req, _res, next) => {
  if (proxyCallOf(req).accessRefused)
    throw new AddonError(
      403,
      'host_auth',
      'not_allowed',
      'Your organization no longer lets you use this add-on’s application; ask an organization administrator',
      false,
    );
  next();
};
