import { data, redirect } from "react-router";
import { applyImport, importProgress, resumeImport } from "#worker/catalog";
import { ApiError } from "#worker/platform/errors";
import { orRefuse } from "#web/components/console/problem.server";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { staffOnly } from "#web/console.server";
import type { Route } from "./+types/import-job";

/** A running import that has not moved for this long may have stopped: offer to resume it. */
const STALLED_MS = 2 * 60_000;

/**
 * One import: the dry run's preview (products to create, update, leave unchanged; row errors) and Apply; then its
 * progress, read from D1 on every load, so a reload or another tab shows the same import (2 D1 round trips).
 */
export const importLoader = staffOnly(async ({ context, params }: Route.LoaderArgs) => {
  const progress = await orRefuse(importProgress(context.services, params.jobId));
  return { ...progress, stalled: progress.job.status === "APPLYING" && Date.now() - Date.parse(progress.job.updatedDate) > STALLED_MS };
});

/** Apply (or resume) the import through the queue, then show its progress. */
export const importAction = staffOnly(async ({ context, request, params }: Route.ActionArgs) => {
  const form = await request.formData();
  try {
    if (form.get("intent") === "resume") await resumeImport(context.services, params.jobId);
    else if (form.get("intent") === "apply") await applyImport(context.services, params.jobId);
    else throw new ApiError(400, "UNKNOWN_INTENT", "Unknown action");
    return redirect(`/console/products/import/${params.jobId}`);
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ problem }, { status: problem.status ?? 400 });
  }
});
