import { createContext, useContext, useState } from "react";

/**
 * The shop's stylesheet inline in every page's head (about 5 KB gzipped): the first paint then waits for no other
 * request, which on a slow phone link is most of the time to the first paint. It comes before the stylesheets routes
 * link (React puts only the charset, the viewport and preloads ahead of it), so those still win.
 *
 * Only the server has the text: web/entry.server.tsx provides it through this context, so the client bundle does not
 * carry the stylesheet a second time. The client renders the text the server sent, read back from the page once,
 * so hydration finds the same element and later renders change nothing.
 *
 * Rendered by React rather than spliced into the HTML stream on its way out: the splice was one more stream layer
 * for every chunk of every page, and cost 5-10% of an uncached page's throughput.
 */
export const InlineCss = createContext<string | null>(null);

export function InlineStyles() {
  const fromServer = useContext(InlineCss);
  const [css] = useState(() => fromServer ?? document.head.querySelector("style")?.textContent ?? "");
  return <style dangerouslySetInnerHTML={{ __html: css }} />;
}
