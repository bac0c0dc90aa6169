import { isbot } from "isbot";
import { renderToReadableStream } from "react-dom/server.node";
import type { AppLoadContext, EntryContext } from "react-router";
import { ServerRouter } from "react-router";
import inlineCss from "./styles.css?inline";
import { InlineCss } from "#web/components/inline-styles";

/**
 * Streamed SSR: shoppers get the shell at once and deferred parts as they resolve; bots, and a page going into the
 * edge cache (`wholePage`), get the complete HTML. Every inline script carries the response's CSP nonce, which the
 * page host makes and sends in the Content-Security-Policy header.
 *
 * Why react-dom's Node build (run with nodejs_compat) and not the edge build: the edge build allocates a new
 * Uint8Array for every string it writes, the Node build fills a 4 KB buffer. That was a quarter of the render's CPU.
 */
export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: AppLoadContext,
) {
  let status = responseStatusCode;
  const nonce = loadContext.cspNonce;
  // Bots (crawlers read the HTML as it is) and pages going into the edge cache (sent as the bytes kept) get the whole
  // page at once: every deferred part in place, no fallbacks swapped by script.
  const whole = isbot(request.headers.get("user-agent") || "") || loadContext.wholePage;
  // The stylesheet goes inline into the head (components/inline-styles.tsx); only the server has its text.
  const page = (
    <InlineCss value={inlineCss}>
      <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
    </InlineCss>
  );
  const body = await renderToReadableStream(page, {
    signal: request.signal,
    nonce,
    // React moves finished sections past a byte budget out of line (fallback now, content later, swapped by script);
    // in a whole page every finished section stays in place.
    ...(whole ? { progressiveChunkSize: Number.MAX_SAFE_INTEGER } : {}),
    onError(error: unknown) {
      status = 500;
      console.error(error);
    },
  });
  if (whole) await body.allReady;
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  return new Response(body, { headers: responseHeaders, status });
}
