import { isbot } from "isbot";
import { renderToReadableStream } from "react-dom/server";
import type { AppLoadContext, EntryContext } from "react-router";
import { ServerRouter } from "react-router";
import inlineCss from "./styles.css?inline";

/**
 * Streamed SSR: shoppers get the shell at once and deferred parts as they resolve; bots wait for everything, so
 * crawlers get complete HTML. Every inline script (React's streaming, React Router's hydration data) carries the
 * request's CSP nonce (worker/app.ts makes it and sends the Content-Security-Policy header).
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
  const bot = isbot(request.headers.get("user-agent") || "");
  const body = await renderToReadableStream(<ServerRouter context={routerContext} url={request.url} nonce={nonce} />, {
    signal: request.signal,
    nonce,
    // React moves finished sections past a byte budget out of line (fallback now, content later, swapped by script).
    // A crawler reads the HTML as it is, so for bots every finished section stays in place.
    ...(bot ? { progressiveChunkSize: Number.MAX_SAFE_INTEGER } : {}),
    onError(error: unknown) {
      status = 500;
      console.error(error);
    },
  });
  if (bot) await body.allReady;
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  return new Response(withInlineStyles(body), { headers: responseHeaders, status });
}

/**
 * The shop's stylesheet goes inline into the head (about 5 KB gzipped): the first paint then waits for no other
 * request, which on a slow phone link is most of the time to the first paint. It is added here, on the server only,
 * rather than rendered by React, so the client bundle does not carry it too (React leaves extra head tags alone
 * when it hydrates). It goes first, right after <meta charset>, so route stylesheets linked later still win.
 */
const STYLE_TAG = `<style>${inlineCss}</style>`;
const ANCHOR = '<meta charSet="utf-8"/>';

function withInlineStyles(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let head = "";
  let inserted = false;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const text = decoder.decode(chunk, { stream: true });
        if (inserted) return controller.enqueue(encoder.encode(text));
        head += text;
        const at = head.indexOf(ANCHOR);
        // Hold the first bytes until the anchor arrives (it is in the shell's first chunk).
        if (at < 0 && head.length < 4096) return;
        const cut = at < 0 ? 0 : at + ANCHOR.length;
        controller.enqueue(encoder.encode(at < 0 ? head : head.slice(0, cut) + STYLE_TAG + head.slice(cut)));
        inserted = true;
      },
      flush(controller) {
        const rest = (inserted ? "" : head) + decoder.decode();
        if (rest) controller.enqueue(encoder.encode(rest));
      },
    }),
  );
}
