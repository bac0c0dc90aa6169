import path from "node:path";

const root = import.meta.dirname;

/** The import aliases of tsconfig.json's `paths`, for Vite and Vitest: `#worker/x` is `worker/x`, `#web/x` is `web/x`. */
export const aliases = [
  { find: /^#worker\/(.*)$/, replacement: path.join(root, "worker/$1") },
  { find: /^#web\/(.*)$/, replacement: path.join(root, "web/$1") },
];
