// Renders a document with the renderer the shop uses, the renderToReadableStream of react-dom's Node build
// (web/entry.server.tsx says why), and answers once everything is rendered, as the data-mode floor does, so a page's
// bytes are the same on every request.
import { renderToReadableStream } from "react-dom/server.node";
import type { EntryContext } from "react-router";
import { ServerRouter } from "react-router";

export default async function handleRequest(request: Request, responseStatusCode: number, responseHeaders: Headers, routerContext: EntryContext) {
  let status = responseStatusCode;
  const body = await renderToReadableStream(<ServerRouter context={routerContext} url={request.url} />, {
    signal: request.signal,
    onError(error: unknown) {
      status = 500;
      console.error(error);
    },
  });
  await body.allReady;
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  return new Response(body, { headers: responseHeaders, status });
}
