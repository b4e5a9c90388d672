/**
 * A process logging to its standard output through the host's default logger, run as a child by
 * test/host/logger-stdout.test.ts. `idle`: one line, then it waits (the line must appear without more traffic);
 * `exit`: a burst of lines under the batch size, then `process.exit` (every line must still be written).
 */
import { createLogger } from '#host/logger.ts';

const logger = createLogger('info');
if (process.argv[2] === 'idle') {
  logger.info({ n: 0 }, 'idle line');
  setTimeout(() => undefined, 60_000);
} else {
  for (let n = 0; n < 20; n++) logger.info({ n }, 'burst line');
  process.exit(0);
}
