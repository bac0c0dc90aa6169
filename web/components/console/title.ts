/** The console layout's route id: its loader carries the store's name for every console page's <title>. */
const LAYOUT_ID = "routes/console/layout";

/**
 * A console page's <title>: the page's own words, then the store's name (Settings → Store) from the console
 * layout's loader, so a merchant with several shops open tells the tabs apart. `matches` is the page's MetaArgs.
 */
export function consoleTitle(matches: readonly ({ id: string; data?: unknown } | undefined)[], title: string): string {
  const layout = matches.find((m) => m?.id === LAYOUT_ID)?.data as { storeName?: unknown } | undefined;
  return typeof layout?.storeName === "string" && layout.storeName ? `${title} — ${layout.storeName}` : title;
}

/** What a console page's `meta` reads: the route matches, and the page's own data when its title depends on it. */
interface ConsoleMetaArgs {
  matches: readonly ({ id: string; data?: unknown } | undefined)[];
}

/** A console page's `meta`: its title (fixed, or made from the page's meta args), then the store's name. */
export function consoleMeta<A extends ConsoleMetaArgs>(title: string | ((args: A) => string)) {
  return (args: A) => [{ title: consoleTitle(args.matches, typeof title === "string" ? title : title(args)) }];
}
