/**
 * Request bodies, read with a byte cap while they stream in, and drained when the answer does not need them.
 *
 * Why drain: answering while the client is still sending breaks the connection under `wrangler dev` (503 for this
 * and the next requests on it), and a client whose upload is cut off may retry. So every body is read to its end,
 * by its handler or by `finishBody`; past DRAIN_LIMIT it is cancelled, so no client can hold a request open forever.
 */

/** The most a refused body is read (and thrown away) before the connection is cut instead. */
export const DRAIN_LIMIT = 32 * 1_048_576;

export class BodyTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`body is larger than ${limitBytes} bytes`);
  }
}

/**
 * The body's bytes, at most `limitBytes` of them, counted as they arrive (a chunked body without Content-Length is
 * never buffered past the limit). Throws BodyTooLarge past the limit, after reading the rest away.
 */
export async function readBytes(request: Request, limitBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  if (Number(request.headers.get("content-length") ?? "0") > limitBytes) throw new BodyTooLarge(limitBytes);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await discard(reader, size);
      throw new BodyTooLarge(limitBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return bytes;
}

/** The body as UTF-8 text (see readBytes); null when it is not valid UTF-8. */
export async function readText(request: Request, limitBytes: number): Promise<string | null> {
  const bytes = await readBytes(request, limitBytes);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Reads a body nobody read (a request refused before its body was needed) to its end; see the module comment. */
export async function finishBody(request: Request): Promise<void> {
  if (!request.body || request.bodyUsed) return;
  try {
    await discard(request.body.getReader(), 0);
  } catch {
    // The client went away: nothing left to protect.
  }
}

async function discard(reader: ReadableStreamDefaultReader<Uint8Array>, alreadyRead: number): Promise<void> {
  let size = alreadyRead;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    size += value.byteLength;
    if (size > DRAIN_LIMIT) {
      await reader.cancel();
      return;
    }
  }
}
