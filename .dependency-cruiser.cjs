/**
 * The import rules of the code base, checked by `npm run check` (dependency-cruiser).
 *
 * worker/ is layered: a folder may import only the folders below it in LAYERS (siblings inside a folder freely), and
 * only through their index.ts, except worker/platform/, the shared ground floor, whose files anyone may import.
 * web/ and entry/ reach worker/ through the same faces; worker/ never imports web/. No import cycles anywhere.
 */

/** The worker/ folders from the bottom up: each may import only the ones before it. */
const LAYERS = [
  "platform",
  "events",
  "tasks",
  "media",
  "catalog",
  "store",
  "cms",
  "email",
  "identity",
  "pricing",
  "cart",
  "payments",
  "orders",
  "recommendations",
  "downloads",
  "automations",
  "customers",
  "webhooks",
  "reports",
  "app",
];

/** A worker/ folder's face: the one file other folders, web/ and entry/ may import. */
const FACE = "^worker/[^/]+/index\\.tsx?$";

const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer}`,
  comment: `worker/${layer}/ may import only the folders below it: ${LAYERS.slice(0, i).join(", ") || "none"}.`,
  severity: "error",
  from: { path: `^worker/${layer}/` },
  to: { path: `^worker/(${LAYERS.slice(i + 1).join("|")})/` },
}));

module.exports = {
  forbidden: [
    {
      name: "no-cycle",
      comment: "No import cycles: each module's imports form a tree, so each folder can be read, tested and moved alone.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "worker-not-to-web",
      comment: "worker/ is the API and the event processor; the pages (web/) sit on top of it, never under it.",
      severity: "error",
      from: { path: "^worker/" },
      to: { path: "^web/" },
    },
    {
      name: "worker-folder-through-index",
      comment: "Another worker/ folder is reached through its index.ts (worker/platform/ files directly).",
      severity: "error",
      from: { path: "^worker/([^/]+)/" },
      to: { path: "^worker/", pathNot: ["^worker/$1/", FACE, "^worker/platform/"] },
    },
    {
      name: "outside-through-index",
      comment: "web/, entry/ and the loose files of worker/ reach a worker/ folder through its index.ts (worker/platform/ files directly).",
      severity: "error",
      from: { path: ["^web/", "^entry/", "^worker/[^/]+$"] },
      to: { path: "^worker/", pathNot: [FACE, "^worker/platform/"] },
    },
    {
      name: "worker-known-folder",
      comment: `Code in worker/ lives in one of its layers (${LAYERS.join(", ")}), so the layer rules see it.`,
      severity: "error",
      from: { path: "^worker/", pathNot: [`^worker/(${LAYERS.join("|")})/`, "\\.d\\.ts$"] },
      to: {},
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|build|\\.react-router|test-artifacts|public)/|^worker-configuration\\.d\\.ts$|^bench/floor/framework/" },
    // `import type` counts too: the layers hold for types as well as values.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".d.ts", ".mts", ".d.mts", ".js", ".mjs", ".cjs", ".json"],
      mainFields: ["module", "main", "types", "typings"],
    },
    builtInModules: { add: ["cloudflare:test", "cloudflare:workers", "cloudflare:email", "cloudflare:sockets"] },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
