/** Where the request path logs: a server's logger (Apollo Server's and GraphQL Yoga's have this shape), or `console`. */
export interface BudgetLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** `console`, without its debug lines (as a server's logger at its default level). */
export const consoleLogger: BudgetLogger = {
  debug: () => {},
  info: (message) => console.info(message),
  warn: (message) => console.warn(message),
  error: (message) => console.error(message),
};
