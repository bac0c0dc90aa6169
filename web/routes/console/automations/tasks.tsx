import { data, Form, Link, useNavigation, useRouteLoaderData } from "react-router";
import { completeTask, listTasks, reopenTask } from "#worker/tasks";
import { dateTimeText, pageOf, PastTheEnd, StatusBadge } from "#web/components/console/automation-lists";
import { AutomationsNav } from "#web/components/console/automations-nav";
import { ErrorSummary } from "#web/components/ui/form";
import { Pager } from "#web/components/console/pager";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { TASK_KINDS, taskKindLabel, taskSubject } from "#web/components/console/tasks";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/tasks";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Tasks — Automations — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 50;

/** The task list's filters from the URL: open tasks unless asked otherwise ("all" shows both). */
function filtersOf(url: URL) {
  const status = url.searchParams.get("status");
  const kind = (url.searchParams.get("kind") ?? "").trim();
  return {
    status: status === "DONE" ? ("DONE" as const) : status === "all" ? ("all" as const) : ("OPEN" as const),
    kind: /^[A-Z_]{1,50}$/.test(kind) ? kind : "",
  };
}

/** One page of tasks for the filters, newest first: one batch (2 D1 round trips with the session). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  const page = pageOf(url);
  const filters = filtersOf(url);
  const { tasks, metadata } = await listTasks(context.services, {
    status: filters.status === "all" ? undefined : filters.status,
    kind: filters.kind || undefined,
    limit: PAGE_SIZE,
    offset: (page - 1) * PAGE_SIZE,
  });
  return { filters, tasks, total: metadata.total, page, pages: Math.max(1, Math.ceil(metadata.total / PAGE_SIZE)) };
}

/** Done or Reopen one task, through the tasks service (automations.manage). */
export async function action({ context, request }: Route.ActionArgs) {
  requireStaff(context, request);
  const form = await request.formData();
  const intent = form.get("intent");
  const id = String(form.get("taskId") ?? "").slice(0, 100);
  if ((intent !== "done" && intent !== "reopen") || !id)
    return data({ ok: null, problem: { message: "Nothing was done: unknown action.", fields: {} } }, { status: 400 });
  try {
    const { task } = intent === "done" ? await completeTask(context.services, id) : await reopenTask(context.services, id);
    return { ok: intent === "done" ? `Done: ${task.title}.` : `Reopened: ${task.title}.`, problem: null };
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ ok: null, problem }, { status: problem.status ?? 400 });
  }
}

export default function ConsoleTasks({ loaderData, actionData }: Route.ComponentProps) {
  const { filters, tasks, total, page, pages } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const mayManage = !!user?.permissions.includes("automations.manage");
  const what = filters.status === "OPEN" ? "open " : filters.status === "DONE" ? "done " : "";
  return (
    <>
      <h1>Tasks</h1>
      <AutomationsNav />
      <p className="console-muted">
        What the shop&rsquo;s automations ask you to look at: high-value carts left behind, stock running low, webhooks switched off, imports that
        failed.
      </p>
      {actionData?.ok && (
        <p className="console-notice" role="status">
          {actionData.ok}
        </p>
      )}
      <ErrorSummary problem={actionData?.problem} />
      {!mayManage && <p className="console-muted">Marking tasks done needs the automations permission.</p>}
      <Form method="get" className="console-toolbar" aria-label="Filter tasks">
        <div className="console-field">
          <label htmlFor="tasks-status">Status</label>
          <select id="tasks-status" name="status" defaultValue={filters.status}>
            <option value="OPEN">Open</option>
            <option value="DONE">Done</option>
            <option value="all">All</option>
          </select>
        </div>
        <div className="console-field">
          <label htmlFor="tasks-kind">Kind</label>
          <select id="tasks-kind" name="kind" defaultValue={filters.kind}>
            <option value="">Any</option>
            {Object.entries(TASK_KINDS).map(([value, k]) => (
              <option key={value} value={value}>
                {k.label}
              </option>
            ))}
            {filters.kind && !TASK_KINDS[filters.kind] && <option value={filters.kind}>{taskKindLabel(filters.kind)}</option>}
          </select>
        </div>
        <div className="console-actions">
          <button type="submit" className="console-button primary" disabled={navigation.state === "loading"}>
            Show tasks
          </button>
        </div>
      </Form>
      {tasks.length === 0 && total > 0 ? (
        <PastTheEnd total={total} what="tasks" />
      ) : tasks.length === 0 ? (
        <p className="console-muted" role="status">
          {filters.kind || filters.status !== "OPEN" ? `No ${what}tasks match these filters.` : "Nothing to do: no open tasks."}
        </p>
      ) : (
        <>
          <p className="console-muted" role="status">{`${total} ${what}${total === 1 ? "task" : "tasks"}.`}</p>
          <div className="console-scroll">
            <table className="console-table">
              <caption className="visually-hidden">{`Tasks (${what.trim() || "all"}), newest first`}</caption>
              <thead>
                <tr>
                  <th scope="col">Task</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  {mayManage && (
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {tasks.map((t) => {
                  const subject = taskSubject(t.kind, t.entityId);
                  return (
                    <tr key={t.id}>
                      <th scope="row">
                        <div className="automation-task-kind">{taskKindLabel(t.kind)}</div>
                        <div className="automation-task-title">{t.title}</div>
                        <div className="console-muted">{t.description}</div>
                        {subject && <Link to={subject.to}>{subject.text}</Link>}
                      </th>
                      <td>
                        <StatusBadge status={t.status} />
                        {t.completedDate && <div className="console-muted">{dateTimeText(t.completedDate)}</div>}
                      </td>
                      <td>{dateTimeText(t.createdDate)}</td>
                      {mayManage && (
                        <td>
                          <Form method="post" className="automation-inline">
                            <input type="hidden" name="taskId" value={t.id} />
                            <input type="hidden" name="intent" value={t.status === "OPEN" ? "done" : "reopen"} />
                            {/* Named after its task: a row of "Done" buttons says nothing to a screen reader. */}
                            <button
                              type="submit"
                              className="console-button"
                              disabled={busy}
                              aria-label={`${t.status === "OPEN" ? "Done" : "Reopen"}: ${t.title}`}
                            >
                              {t.status === "OPEN" ? "Done" : "Reopen"}
                            </button>
                          </Form>
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager page={page} pages={pages} label="Pages of tasks" />
        </>
      )}
    </>
  );
}
