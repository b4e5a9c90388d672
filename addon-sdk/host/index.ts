/** The host page's public API: mount an add-on. */
export { mountAddon, type MountOptions, type MountedAddon, type MountStatus, type MountEvent } from './mount.tsx';
export { BootError, type BootFailure } from './sandbox-frame.ts';
export type { HandshakeState } from './authorization.ts';
