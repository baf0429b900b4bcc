/**
 * Loaded with `node --import` into an app-server child process by the fault suite: reports on
 * stdout what a test needs to judge the process's health, without touching the app's code.
 *   health unhandled-rejection <reason>    (the process would have crashed without this listener)
 *   health uncaught-exception <error>      (the process is about to crash)
 *   health memory rss=<bytes> heap=<bytes> (on SIGUSR2, after a full GC when --expose-gc is set;
 *                                           on demand only, so GC never stalls the measured load)
 */
const write = (line: string): void => {
  process.stdout.write(`health ${line.replace(/\n/g, ' ')}\n`);
};

process.on('unhandledRejection', (reason) => {
  write(`unhandled-rejection ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
});
process.on('uncaughtExceptionMonitor', (error) => {
  write(`uncaught-exception ${error.stack ?? error.message}`);
});

const gc = (globalThis as { gc?: () => void }).gc;
process.on('SIGUSR2', () => {
  gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  write(`memory rss=${rss} heap=${heapUsed}`);
});
