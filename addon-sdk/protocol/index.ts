/** The wire contracts shared by the worker, the host embedder, the host's proxy and tests (see README.md here). */
export * from './messages.ts';
export * from './components.ts';
export * from './proxy.ts';
