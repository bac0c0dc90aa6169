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
 * Rendered by React rather than spliced into the HTML stream on its way out: that splice was one more stream layer
 * every chunk of every page went through: about 5-10% of an uncached page's throughput (issue 15, measured in
 * alternating turns against the splice).
 */
export const InlineCss = createContext<string | null>(null);

export function InlineStyles() {
  const fromServer = useContext(InlineCss);
  const [css] = useState(() => fromServer ?? document.head.querySelector("style")?.textContent ?? "");
  // biome-ignore lint/security/noDangerouslySetInnerHtml: the page's own stylesheet, read from the server render or the head.
  return <style dangerouslySetInnerHTML={{ __html: css }} />;
}
