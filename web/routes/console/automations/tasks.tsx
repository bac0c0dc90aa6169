import { Link, useNavigation } from "react-router";
import { completeTask, listTasks, reopenTask } from "#worker/tasks";
import { AutomationHead, dateTimeText, ListBody, pageOf, pagesOf, StatusBadge } from "#web/components/console/automation-lists";
import { FilterBar } from "#web/components/console/filter-bar";
import { intentAction } from "#web/components/console/intent-action.server";
import { Pager } from "#web/components/console/pager";
import { PostButton } from "#web/components/console/post-button";
import { TASK_KINDS, taskKindLabel, taskSubject } from "#web/components/console/tasks";
import { consoleMeta } from "#web/components/console/title";
import { Select } from "#web/components/ui/form";
import { useCan } from "#web/components/ui/page";
import { type Column, DataTable, ListStatus } from "#web/components/ui/table";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import type { Route } from "./+types/tasks";

export const meta = consoleMeta("Tasks — Automations — Console");

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
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const url = new URL(request.url);
  const page = pageOf(url);
  const filters = filtersOf(url);
  const { tasks, metadata } = await listTasks(context.services, {
    status: filters.status === "all" ? undefined : filters.status,
    kind: filters.kind || undefined,
    limit: PAGE_SIZE,
    offset: (page - 1) * PAGE_SIZE,
  });
  return { filters, tasks, total: metadata.total, page, pages: pagesOf(metadata.total, PAGE_SIZE) };
});

/** Done or Reopen one task, through the tasks service (automations.manage). */
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const form = await request.formData();
  const id = String(form.get("taskId") ?? "").slice(0, 100);
  return intentAction(form, id ? (["done", "reopen"] as const) : [], async (intent) => {
    const { task } = intent === "done" ? await completeTask(context.services, id) : await reopenTask(context.services, id);
    return intent === "done" ? `Done: ${task.title}.` : `Reopened: ${task.title}.`;
  });
});

type Task = Route.ComponentProps["loaderData"]["tasks"][number];

export default function ConsoleTasks({ loaderData, actionData }: Route.ComponentProps) {
  const { filters, tasks, total, page, pages } = loaderData;
  const busy = useNavigation().state === "submitting";
  const mayManage = useCan("automations.manage");
  const what = filters.status === "OPEN" ? "open " : filters.status === "DONE" ? "done " : "";
  const kinds = Object.entries(TASK_KINDS).map(([value, k]) => [value, k.label] as const);
  if (filters.kind && !TASK_KINDS[filters.kind]) kinds.push([filters.kind, taskKindLabel(filters.kind)]);
  const columns: Column<Task>[] = [
    {
      header: "Task",
      rowHeader: true,
      cell: (t) => {
        const subject = taskSubject(t.kind, t.entityId);
        return (
          <>
            <div className="automation-task-kind">{taskKindLabel(t.kind)}</div>
            <div className="automation-task-title">{t.title}</div>
            <div className="console-muted">{t.description}</div>
            {subject && <Link to={subject.to}>{subject.text}</Link>}
          </>
        );
      },
    },
    {
      header: "Status",
      cell: (t) => (
        <>
          <StatusBadge status={t.status} />
          {t.completedDate && <div className="console-muted">{dateTimeText(t.completedDate)}</div>}
        </>
      ),
    },
    { header: "Created", cell: (t) => dateTimeText(t.createdDate) },
  ];
  if (mayManage)
    columns.push({
      header: <span className="visually-hidden">Actions</span>,
      // Named after its task: a row of "Done" buttons says nothing to a screen reader.
      cell: (t) => (
        <PostButton
          intent={t.status === "OPEN" ? "done" : "reopen"}
          fields={{ taskId: t.id }}
          disabled={busy}
          label={`${t.status === "OPEN" ? "Done" : "Reopen"}: ${t.title}`}
        >
          {t.status === "OPEN" ? "Done" : "Reopen"}
        </PostButton>
      ),
    });
  return (
    <>
      <AutomationHead
        title="Tasks"
        intro="What the shop’s automations ask you to look at: high-value carts left behind, stock running low, webhooks switched off, imports that failed."
        result={actionData}
      />
      {!mayManage && <p className="console-muted">Marking tasks done needs the automations permission.</p>}
      <FilterBar label="Filter tasks" submit="Show tasks">
        <Select
          id="tasks-status"
          name="status"
          label="Status"
          defaultValue={filters.status}
          options={[
            ["OPEN", "Open"],
            ["DONE", "Done"],
            ["all", "All"],
          ]}
        />
        <Select id="tasks-kind" name="kind" label="Kind" defaultValue={filters.kind} placeholder="Any" options={kinds} />
      </FilterBar>
      <ListBody
        shown={tasks.length}
        total={total}
        what="tasks"
        empty={filters.kind || filters.status !== "OPEN" ? `No ${what}tasks match these filters.` : "Nothing to do: no open tasks."}
      >
        <ListStatus>{`${total} ${what}${total === 1 ? "task" : "tasks"}.`}</ListStatus>
        <DataTable<Task> caption={`Tasks (${what.trim() || "all"}), newest first`} rows={tasks} rowKey={(t) => t.id} columns={columns} />
        <Pager page={page} pages={pages} label="Pages of tasks" />
      </ListBody>
    </>
  );
}
