import { redirect } from "react-router";
import { eventRegistry } from "#worker/app";
import { deleteSource, removeSourceKey, rotateKeyRequest, rotateSourceKey, updateSource, updateSourceRequest } from "#worker/webhooks";
import { parseWith } from "#worker/platform/validation";
import { byIntent } from "#web/components/console/problem.server";
import type { WebhookResult } from "#web/components/console/webhooks";
import { requireConfirmation, WEBHOOKS } from "#web/components/console/webhooks.server";
import { staffOnly } from "#web/console.server";
import type { Route } from "./+types/source";

export type ActionResult = WebhookResult & { secret?: string };

/**
 * Rotation, ending a key now, the event types it may send, disable/enable and delete: each through the sources
 * service (automations.manage, and the permissions its types need to rotate, allow or enable).
 */
export const sourceAction = staffOnly(async ({ context, request, params }: Route.ActionArgs) => {
  const ctx = context.services;
  const form = await request.formData();
  const types = form.getAll("eventTypes").map(String);
  return byIntent<{ ok: string; secret?: string }>(
    form,
    {
      rotate: async (v) => {
        const overlap = (v.overlapMinutes ?? "").trim();
        const input = parseWith(rotateKeyRequest, {
          overlapMinutes: /^\d+$/.test(overlap) ? Number(overlap) : overlap,
          ...(v.publicKey !== undefined ? { publicKey: v.publicKey } : {}),
        });
        const rotated = await rotateSourceKey(ctx, params.id, input);
        const old = rotated.source.keys.filter((k) => k.id !== rotated.keyId);
        const ok = old.length
          ? `New key ${rotated.keyId} added. The old ${old.length === 1 ? "key keeps" : "keys keep"} working until the time shown below, then stop.`
          : `New key ${rotated.keyId} added.`;
        return { ok, ...(rotated.secret ? { secret: rotated.secret } : {}) };
      },
      "event-types": async () => {
        const { source } = await updateSource(ctx, params.id, parseWith(updateSourceRequest, { eventTypes: types }), eventRegistry);
        return { ok: `The source may now send ${source.eventTypes.join(", ")}, acting for you.` };
      },
      "remove-key": async (v) => {
        await removeSourceKey(ctx, params.id, v.keyId ?? "");
        return { ok: `Key ${v.keyId} removed: it no longer verifies anything.` };
      },
      enabled: async (v) => {
        const { source } = await updateSource(ctx, params.id, { enabled: v.enabled === "true" }, eventRegistry);
        return {
          ok: source.enabled
            ? "Source enabled: it accepts signed requests again."
            : "Source disabled: every request is refused (403) until you enable it.",
        };
      },
      delete: async () => {
        requireConfirmation(form, "this source");
        await deleteSource(ctx, params.id);
        return redirect("/console/webhooks");
      },
    },
    { wording: WEBHOOKS, kept: { types } },
  );
});
