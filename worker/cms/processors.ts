import { purgeCatalogCache } from "#worker/catalog";
import type { Processor } from "#worker/events";
import { CMS_EVENTS } from "./items";

/** Menus and pages show on every shop page: a CMS write purges the catalogue cache (pages included) for everyone. */
export const cmsCacheProcessors: Processor[] = [
  {
    name: "cms-cache",
    types: Object.values(CMS_EVENTS),
    async run(event, _data, p) {
      await purgeCatalogCache(p.env, event.eventTime);
    },
  },
];
