// The shop's React Router settings (react-router.config.ts at the repository root: SSR, route discovery, future
// flags), with the floor's app in ./app.
import type { Config } from "@react-router/dev/config";
import shop from "../../../react-router.config";

export default { ...shop, appDirectory: "app" } satisfies Config;
