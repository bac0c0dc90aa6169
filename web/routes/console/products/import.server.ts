import { data, redirect } from "react-router";
import { checkImport } from "#worker/catalog";
import { ApiError } from "#worker/platform/errors";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { requireStaff } from "#web/console.server";
import type { Route } from "./+types/import";

/**
 * The dry run: the file is parsed and every row checked against the catalogue's rules, and the result stored as an
 * import to look at before applying it. A file that cannot be read is refused next to the file field, and nothing
 * is stored.
 */
export async function checkUpload({ context, request }: Route.ActionArgs) {
  const user = requireStaff(context, request);
  const form = await request.formData();
  const file = form.get("file");
  try {
    if (!(file instanceof File) || file.size === 0)
      throw new ApiError(400, "NO_FILE", "Choose a CSV file to import", {
        fieldViolations: [
          {
            field: "file",
            description: "Choose a CSV file to import (an export from this console is a good start)",
            violatedRule: "REQUIRED_FIELD",
            data: {},
          },
        ],
      });
    const { jobId } = await checkImport(
      context.services,
      { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) },
      { email: user.email },
    );
    return redirect(`/console/products/import/${jobId}`);
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ problem }, { status: problem.status ?? 400 });
  }
}
