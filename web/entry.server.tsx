import { isbot } from "isbot";
import { renderToReadableStream } from "react-dom/server.node";
import type { AppLoadContext, EntryContext } from "react-router";
import { ServerRouter } from "react-router";
import inlineCss from "./styles.css?inline";
import { indexOfBytes } from "../worker/platform/bytes";

/**
 * Streamed SSR: shoppers get the shell at once and deferred parts as they resolve; bots wait for everything, so
 * crawlers get complete HTML. Every inline script (React's streaming, React Router's hydration data) carries the
 * request's CSP nonce (worker/app.ts makes it and sends the Content-Security-Policy header).
 *
 * The renderer is react-dom's Node build (workerd runs it with nodejs_compat), not the edge build the "workerd" export
 * condition picks: both return a web ReadableStream, but the edge build allocates a new Uint8Array for every string it
 * writes (each attribute, each text), while the Node build encodes them straight into a 4 KB buffer. On the shop's
 * pages that was about a quarter of the render's CPU time (issue 15).
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
const encoder = new TextEncoder();
const STYLE_BYTES = encoder.encode(`<style>${inlineCss}</style>`);
const ANCHOR = encoder.encode('<meta charSet="utf-8"/>');

/**
 * Works on bytes: the anchor is ASCII, so it is found without decoding, and every chunk after it passes through
 * untouched (decoding and re-encoding the whole page cost a few percent of a render).
 */
function withInlineStyles(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let head: Uint8Array = new Uint8Array(0);
  let inserted = false;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (inserted) return controller.enqueue(chunk);
        head = concat(head, chunk);
        const at = indexOfBytes(head, ANCHOR);
        // Hold the first bytes until the anchor arrives (it is in the shell's first chunk).
        if (at < 0 && head.length < 4096) return;
        inserted = true;
        if (at < 0) return controller.enqueue(head);
        const cut = at + ANCHOR.length;
        controller.enqueue(concat(head.subarray(0, cut), STYLE_BYTES, head.subarray(cut)));
      },
      flush(controller) {
        if (!inserted && head.length) controller.enqueue(head);
      },
    }),
  );
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
