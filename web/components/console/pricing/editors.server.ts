import type { AppLoadContext } from "react-router";
import type { Ctx } from "#worker/platform/context";
import { staffOnly } from "#web/console.server";
import { pricingAction, storedItem } from "../pricing.server";
import type { EditorWords } from "./editors";

/** Server side of a pricing edit page: its loader and its save-or-delete action, from the service and its wrapper. */

type Service = Parameters<typeof storedItem>[0] & Parameters<typeof pricingAction>[0]["service"];

/**
 * A staff-only loader of one item to edit ("new": none), the store currency and what `more` reads beside it (in
 * parallel); a refusal such as 404 is thrown.
 */
export function editLoader<T, M extends object = Record<never, never>>(service: Service, wrapper: string, more?: (ctx: Ctx) => Promise<M>) {
  return staffOnly(async ({ context, params }: { context: AppLoadContext; request: Request; params: { id?: string } }) => {
    const ctx = context.services;
    const [item, extra] = await Promise.all([storedItem<T>(service, ctx, params.id ?? "new", wrapper), more?.(ctx)]);
    return { item, currency: ctx.currency, ...(extra as M) };
  });
}

/** Create, save or delete through the service the API calls (settings.manage; 400 and 409 write nothing), back to the list. */
export function editAction<T>(
  service: Service,
  wrapper: string,
  words: EditorWords<T>,
  opts: Omit<Parameters<typeof pricingAction>[0], "service" | "wrapper" | "listPath">,
) {
  return pricingAction({ ...opts, service, wrapper, listPath: words.back[0] });
}
