// Stand-in for React Router's virtual server build inside the workerd API tests: that module exists only in
// the React Router Vite build.
// Pages are tested on the real build by tests/node and the browser tests.
export const routes = {};
export const entry = { module: { default: () => new Response("SSR is not part of the workerd test build", { status: 501 }) } };
export default {};
