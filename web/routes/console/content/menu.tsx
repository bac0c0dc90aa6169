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

/** One menu by slug with its links in order and the pages and collections it may add (2 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, params }: Route.LoaderArgs) => ({ menu: await menuForEditor(context.services, params.slug) }));

/** Rename, add, remove or move a link: each stores the whole menu through the CMS items service (cms.write). */
export const action = staffOnly(async ({ context, request, params }: Route.ActionArgs) => {
  const change = (make: (v: Record<string, string>) => MenuChange) => async (v: Record<string, string>) => ({
    ok: await changeMenu(context.services, params.slug, make(v)),
  });
  const link = (kind: "add" | "remove" | "up" | "down") => change((v) => ({ kind, key: v.link ?? "" }));
  return byIntent(await request.formData(), {
    save: change((v) => ({ kind: "rename", title: v["dataItem.data.title"] ?? "" })),
    add: link("add"),
    addUrl: change((v) => ({ kind: "addUrl", title: v.title ?? "", url: v.url ?? "" })),
    remove: link("remove"),
    up: link("up"),
    down: link("down"),
  });
});

/** One of a listed link's buttons: a form of its own, so it works without JavaScript. */
function LinkButton({ intent, link, label, text }: { intent: string; link: string; label: string; text: string }) {
  return (
    <Form method="post">
      <input type="hidden" name="link" value={link} />
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
  const last = menu.entries.length - 1;
  return (
    <>
      <PageHead title={`Menu: ${menu.title}`} back={["/console/content", "Content"]} />
      {menu.where && <p className="console-muted">{menu.where}</p>}
      <Notice text={result?.ok} />
      {result?.intent !== "save" && result?.intent !== "addUrl" && <ErrorSummary problem={result?.problem} />}
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
      <h2>Links in this menu</h2>
      {menu.entries.length === 0 ? (
        <EmptyState>This menu lists no links yet.</EmptyState>
      ) : (
        <ol className="content-menu-pages" aria-label="Links in this menu, in order">
          {menu.entries.map((e, i) => (
            <li key={e.key}>
              <span className="content-menu-title">{e.title}</span> <span className="console-muted">{e.path}</span>
              {canWrite && (
                <span className="console-actions">
                  {i > 0 && <LinkButton intent="up" link={e.key} label={`Move “${e.title}” up`} text="Up" />}
                  {i < last && <LinkButton intent="down" link={e.key} label={`Move “${e.title}” down`} text="Down" />}
                  <LinkButton intent="remove" link={e.key} label={`Remove “${e.title}” from the menu`} text="Remove" />
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
      {canWrite && menu.choices.length > 0 && (
        <Form method="post" className="console-form content-menu-add" aria-label="Add a page or collection">
          <Select name="link" id="content-menu-add" label="Add a page or collection" options={menu.choices} />
          <button type="submit" name="intent" value="add" className="console-button primary">
            Add to menu
          </button>
        </Form>
      )}
      {canWrite && (
        <Form method="post" className="console-form content-menu-add" aria-label="Add a link">
          {result?.intent === "addUrl" && <ErrorSummary problem={result.problem} />}
          <Field name="title" id="content-menu-url-title" label="Link text" required maxLength={200} />
          <Field
            name="url"
            id="content-menu-url"
            label="Address"
            required
            maxLength={2048}
            hint="A page of this shop (/shop) or a full address (https://…)."
          />
          <button type="submit" name="intent" value="addUrl" className="console-button">
            Add link
          </button>
        </Form>
      )}
    </>
  );
}
