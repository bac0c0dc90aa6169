import { useEffect, useState, type AnchorHTMLAttributes } from "react";
import { PrefetchPageLinks, useNavigate } from "react-router";

/**
 * The shop's many in-page links (cards, tiles, the footer) are plain <a> elements (`ShopLink`) served by one click
 * handler and one prefetcher (`ShopLinks`, in the root layout). Why not a <Link> each: sixty of them cost a tenth of
 * an uncached page's server time. Visitors see no difference: clicks navigate in the app, a 100 ms hover or focus
 * prefetches (as `prefetch="intent"` does), and without JavaScript each is an ordinary link.
 */
export function ShopLink({
  to,
  prefetch = false,
  ...rest
}: { to: string; prefetch?: boolean } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href">) {
  // No data-discover: the browser has every route from the start (react-router.config.ts, routeDiscovery "initial").
  return <a {...rest} href={to} data-shop-link={prefetch ? "prefetch" : ""} />;
}

/** Ms a pointer or the focus rests on a card before its page is fetched ahead (React Router's own delay). */
const INTENT_DELAY_MS = 100;

export function ShopLinks() {
  const navigate = useNavigate();
  const [intent, setIntent] = useState<string | null>(null);
  useEffect(() => {
    const linkOf = (target: EventTarget | null) => (target instanceof Element ? target.closest<HTMLAnchorElement>("a[data-shop-link]") : null);
    const sameSite = (a: HTMLAnchorElement) => a.origin === window.location.origin;

    // The checks of React Router's own link clicks: a plain left click on a link to this site, meant for this tab.
    const onClick = (e: MouseEvent) => {
      const a = linkOf(e.target);
      if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.altKey || e.ctrlKey || e.shiftKey) return;
      if ((a.target && a.target !== "_self") || a.hasAttribute("download") || !sameSite(a)) return;
      e.preventDefault();
      const to = a.pathname + a.search + a.hash;
      const here = window.location.pathname + window.location.search + window.location.hash;
      navigate(to, { replace: to === here });
    };

    let pending: HTMLAnchorElement | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onIntent = (e: Event) => {
      const a = linkOf(e.target);
      if (!a || a === pending || a.dataset.shopLink !== "prefetch" || !sameSite(a)) return;
      clearTimeout(timer);
      pending = a;
      timer = setTimeout(() => setIntent(a.pathname + a.search), INTENT_DELAY_MS);
    };
    const onLeave = (e: Event) => {
      const a = linkOf(e.target);
      // Moving between the parts of one card is not leaving it.
      if (!a || a !== pending || a.contains((e as MouseEvent | FocusEvent).relatedTarget as Node | null)) return;
      clearTimeout(timer);
      pending = null;
    };

    const listeners: [string, EventListener][] = [
      ["click", onClick as EventListener],
      ["mouseover", onIntent],
      ["focusin", onIntent],
      ["touchstart", onIntent],
      ["mouseout", onLeave],
      ["focusout", onLeave],
    ];
    for (const [type, fn] of listeners) document.addEventListener(type, fn, { passive: type === "touchstart" });
    return () => {
      clearTimeout(timer);
      for (const [type, fn] of listeners) document.removeEventListener(type, fn);
    };
  }, [navigate]);
  return intent ? <PrefetchPageLinks page={intent} /> : null;
}
