// Shared by the tests that look at every statement a piece of the shop runs (tests/orders/rows-read.test.ts,
// tests/automations/abandoned-carts.test.ts).

/** A statement as it went to D1: its SQL and parameters. */
export interface Ran {
  sql: string;
  params: unknown[];
}

/**
 * env.DB (and every D1 session opened on it) with each statement it runs recorded, the worker's own counting
 * (Server-Timing) left as it is: the statements go to D1 unchanged, batches included.
 */
export function recordingD1(d1: D1Database, ran: Ran[]): D1Database {
  const real = new WeakMap<object, D1PreparedStatement>();
  const wrap = (stmt: D1PreparedStatement, text: string, params: unknown[]): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...values: unknown[]) => wrap(target.bind(...values), text, values);
        if (prop === "all" || prop === "first" || prop === "run" || prop === "raw") {
          return (...args: unknown[]) => {
            ran.push({ sql: text, params });
            return (target[prop] as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    real.set(proxy, stmt);
    recorded.set(proxy, { sql: text, params });
    return proxy;
  };
  const recorded = new WeakMap<object, Ran>();
  const session = <T extends object>(db: T): T =>
    new Proxy(db, {
      get(target, prop) {
        const t = target as unknown as D1Database & { withSession(...a: unknown[]): object };
        if (prop === "prepare") return (query: string) => wrap(t.prepare(query), query, []);
        if (prop === "batch") {
          return (statements: D1PreparedStatement[]) => {
            for (const s of statements) ran.push(recorded.get(s) ?? { sql: "(unrecorded)", params: [] });
            return t.batch(statements.map((s) => real.get(s) ?? s));
          };
        }
        if (prop === "withSession") return (...args: unknown[]) => session(t.withSession(...args));
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return session(d1);
}
