// One page route: a listing of product cards, like a collection page's grid.
import { route, type RouteConfig } from "@react-router/dev/routes";

export default [route("page/:name", "routes/page.tsx")] satisfies RouteConfig;
