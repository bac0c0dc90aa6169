import { RichContent, type RichNode } from "#web/components/catalog/rich-content";
import { seoMeta, SHOP_NAME } from "#web/components/catalog/shared";
import { contentPageOr404 } from "#web/content.server";
import type { Route } from "./+types/content-page";

export const meta = ({ data }: Route.MetaArgs) => seoMeta(data?.seo);

/** A content page from the CMS (about, shipping and returns, privacy, terms…): a missing page is a 404. */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const page = await contentPageOr404(context.services, params.slug);
  const url = new URL(request.url);
  return {
    page,
    seo: {
      title: `${page.seoTitle || page.title} — ${SHOP_NAME}`,
      description: page.seoDescription || `${page.title} at ${SHOP_NAME}.`,
      canonical: `${url.origin}/pages/${page.slug}`,
    },
  };
}

export default function ContentPage({ loaderData }: Route.ComponentProps) {
  const { page } = loaderData;
  return (
    <main className="page content-page">
      <h1>{page.title}</h1>
      <RichContent nodes={page.nodes as unknown as RichNode[]} />
    </main>
  );
}
