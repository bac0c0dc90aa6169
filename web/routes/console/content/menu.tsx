import { Form } from "react-router";
import { changeMenu, menuForEditor, type MenuChange } from "#web/components/console/content/content.server";
import { byIntent } from "#web/components/console/problem.server";
import { consoleMeta } from "#web/components/console/title";
import { ErrorSummary, Field, fieldId, type Problem, Select } from "#web/components/ui/form";
import { EmptyState, Notice, PageHead, useEditor } from "#web/components/ui/page";
import { consoleHeaders, staffOnly } from "#web/console.server";
import "#web/styles/console-content.css";
import type { Route } from "./+types/menu";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(({ data: d }) => `${d?.menu.title ?? "Menu"} — Content — Console`);

export const headers = () => consoleHeaders;

/** One menu by slug with its pages in order and the pages it may add (2 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, params }: Route.LoaderArgs) => ({ menu: await menuForEditor(context.services, params.slug) }));

/** Rename, add, remove or move a page: each stores the whole menu through the CMS items service (cms.write). */
export const action = staffOnly(async ({ context, request, params }: Route.ActionArgs) => {
  const change = (make: (v: Record<string, string>) => MenuChange) => async (v: Record<string, string>) => ({
    ok: await changeMenu(context.services, params.slug, make(v)),
  });
  const page = (kind: "add" | "remove" | "up" | "down") => change((v) => ({ kind, pageId: v.pageId ?? "" }));
  return byIntent(await request.formData(), {
    save: change((v) => ({ kind: "rename", title: v["dataItem.data.title"] ?? "" })),
    add: page("add"),
    remove: page("remove"),
    up: page("up"),
    down: page("down"),
  });
});

/** One of a listed page's buttons: a form of its own, so it works without JavaScript. */
function PageButton({ intent, pageId, label, text }: { intent: string; pageId: string; label: string; text: string }) {
  return (
    <Form method="post">
      <input type="hidden" name="pageId" value={pageId} />
      <button type="submit" name="intent" value={intent} className="console-button" aria-label={label}>
        {text}
      </button>
    </Form>
  );
}

export default function ContentMenuEditor({ loaderData, actionData }: Route.ComponentProps) {
  const { menu } = loaderData;
  const { canWrite, field } = useEditor(actionData, "cms.write");
  const result = actionData as { ok?: string | null; problem?: Problem | null; intent?: string } | undefined;
  const last = menu.pages.length - 1;
  return (
    <>
      <PageHead title={`Menu: ${menu.title}`} back={["/console/content", "Content"]} />
      {menu.where && <p className="console-muted">{menu.where}</p>}
      <Notice text={result?.ok} />
      {result?.intent !== "save" && <ErrorSummary problem={result?.problem} />}
      {canWrite ? (
        <Form method="post" className="console-form content-menu-name" aria-label="Menu name">
          {result?.intent === "save" && <ErrorSummary problem={result.problem} fieldIds={fieldId} />}
          <Field {...field("dataItem.data.title", menu.title)} label="Name" required maxLength={200} hint="For you; shoppers see only the links." />
          <button type="submit" name="intent" value="save" className="console-button">
            Save name
          </button>
        </Form>
      ) : (
        <p className="console-muted">Changing menus needs the permission “cms.write”; you can look but not change.</p>
      )}
      <h2>Pages in this menu</h2>
      {menu.pages.length === 0 ? (
        <EmptyState>This menu lists no pages yet.</EmptyState>
      ) : (
        <ol className="content-menu-pages" aria-label="Pages in this menu, in order">
          {menu.pages.map((p, i) => (
            <li key={p.id}>
              <span className="content-menu-title">{p.title}</span> <span className="console-muted">/pages/{p.slug}</span>
              {canWrite && (
                <span className="console-actions">
                  {i > 0 && <PageButton intent="up" pageId={p.id} label={`Move “${p.title}” up`} text="Up" />}
                  {i < last && <PageButton intent="down" pageId={p.id} label={`Move “${p.title}” down`} text="Down" />}
                  <PageButton intent="remove" pageId={p.id} label={`Remove “${p.title}” from the menu`} text="Remove" />
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
      {canWrite && menu.choices.length > 0 && (
        <Form method="post" className="console-form content-menu-add" aria-label="Add a page">
          <Select name="pageId" id="content-menu-add" label="Add a page" options={menu.choices} />
          <button type="submit" name="intent" value="add" className="console-button primary">
            Add to menu
          </button>
        </Form>
      )}
    </>
  );
}
