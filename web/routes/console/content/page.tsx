import { redirect } from "react-router";
import { removeItem, PAGES } from "#worker/cms";
import { requirePermission } from "#worker/platform/context";
import { pageForEditor, savePage } from "#web/components/console/content/content.server";
import { byIntent } from "#web/components/console/problem.server";
import { consoleMeta } from "#web/components/console/title";
import { Field, TextArea } from "#web/components/ui/form";
import { EditPage, Notice, useEditor } from "#web/components/ui/page";
import { consoleHeaders, staffOnly } from "#web/console.server";
import type { Route } from "./+types/page";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(({ data: d }) => `${d?.page ? d.page.title : "New page"} — Content — Console`);

export const headers = () => consoleHeaders;

/** One content page to edit ("new": a blank one); 1 D1 round trip with the session. */
export const loader = staffOnly(async ({ context, params, request }: Route.LoaderArgs) => {
  const saved = new URL(request.url).searchParams.has("saved");
  return { page: await pageForEditor(context.services, params.id), saved };
});

/** Create or save through the CMS items service (cms.write; bad input writes nothing), or delete, asked twice. */
export const action = staffOnly(async ({ context, request, params }: Route.ActionArgs) => {
  const ctx = context.services;
  const id = params.id === "new" ? undefined : params.id;
  return byIntent(await request.formData(), {
    save: async (v) => {
      const item = await savePage(ctx, v, id);
      return redirect(`/console/content/pages/${item.id}?saved=1`);
    },
    delete: async (v) => {
      if (!id) throw new Response("Not found", { status: 404 });
      if (v.confirm !== "yes") {
        requirePermission(ctx, "cms.write");
        return { ok: null, confirmDelete: true, values: null };
      }
      const { dataItem } = await removeItem(ctx, PAGES, id);
      return redirect(`/console/content?deleted=${encodeURIComponent(String(dataItem.data.title).slice(0, 200))}`);
    },
  });
});

const D = "dataItem.data";

export default function ContentPageEditor({ loaderData, actionData }: Route.ComponentProps) {
  const { page, saved } = loaderData;
  const { result, canWrite, field } = useEditor(actionData, "cms.write");
  return (
    <EditPage
      back={["/console/content", "Content"]}
      title={page ? page.title : "New page"}
      note={<Notice text={saved && !result ? `Saved “${page?.title}”. It is live at /pages/${page?.slug}.` : null} />}
      result={result}
      canWrite={canWrite}
      permission="cms.write"
      subject="content"
      submitLabel={page ? "Save page" : "Create page"}
      deleteWhat={page ? `page “${page.title}”` : null}
    >
      <Field {...field(`${D}.title`, page?.title)} label="Title" required maxLength={200} />
      <Field
        {...field(`${D}.slug`, page?.slug)}
        label="Slug"
        required
        maxLength={100}
        autoCapitalize="none"
        spellCheck={false}
        hint="The page's address in the shop, /pages/<slug>: lower-case letters, digits and single dashes, such as shipping-and-returns."
      />
      <TextArea
        {...field(`${D}.body`, page?.body)}
        label="Content"
        rows={14}
        maxLength={100_000}
        hint="Markdown: a blank line between paragraphs, ## for a heading, - for a list, **bold**, [a link](https://…)."
      />
      <TextArea
        {...field(`${D}.seoDescription`, page?.seoDescription)}
        label="Search engine description"
        rows={2}
        maxLength={320}
        hint="Shown under the page's title in search results."
      />
    </EditPage>
  );
}
