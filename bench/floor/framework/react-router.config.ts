// The shop's React Router settings (react-router.config.ts at the repository root), with the app in ./app.
import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // As the shop: the whole manifest in one module, none worked out per request.
  routeDiscovery: { mode: "initial" },
  future: {
    v8_viteEnvironmentApi: true, // needed with @cloudflare/vite-plugin
    v8_middleware: false,
    v8_splitRouteModules: false,
    v8_passThroughRequests: false,
    v8_trailingSlashAwareDataRequests: false,
  },
} satisfies Config;
