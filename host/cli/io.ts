/** Where a command writes: stdout for results, stderr for progress and errors (plain functions, passed on detached). */
export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const processIo: CommandIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
