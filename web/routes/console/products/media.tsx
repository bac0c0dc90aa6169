import { useNavigation } from "react-router";
import { productMediaView } from "#worker/catalog";
import { MediaItem } from "#web/components/console/product-media/item";
import { MediaUpload } from "#web/components/console/product-media/upload";
import { ErrorSummary } from "#web/components/ui/form";
import { Notice, PageHead, useCan } from "#web/components/ui/page";
import { consoleMeta } from "#web/components/console/title";
import { orRefuse } from "#web/components/console/problem.server";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-media.css";
import { productMediaAction } from "./media.server";
import type { Route } from "./+types/media";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(({ data: d }) =>
  d?.product ? `Media of ${d.product.name} — Console` : "Media — Console",
);

/** The product's media in order, with its options for choice links: one D1 read (2 round trips with the session). */
export const loader = staffOnly(async ({ context, params }: Route.LoaderArgs) => ({
  product: await orRefuse(productMediaView(context.services, params.id), "No such product."),
}));

/** Upload, reorder, remove, alt text and choice links (./media.server.ts). */
export const action = staffOnly(async ({ context, request, params }: Route.ActionArgs) => {
  return productMediaAction(context.services, params.id, await request.formData());
});

export default function ProductMedia({ loaderData, actionData }: Route.ComponentProps) {
  const { product } = loaderData;
  const canWrite = useCan("catalog.write");
  const navigation = useNavigation();
  // Without JavaScript the upload form posts as a page, so its answer is the page's action data.
  const result = actionData;
  const itemResult = result && result.intent !== "upload" ? result : undefined;

  // Optimistic: a reorder or removal in flight shows its outcome at once, until the page's data has caught up (the
  // submission's formData stays set while the loaders revalidate).
  const pending = navigation.formData;
  let media = product.media;
  if (pending?.get("intent") === "reorder") {
    const order = String(pending.get("order") ?? "").split(",");
    if (order.length === media.length) media = order.map((mid) => media.find((m) => m.id === mid)!).filter(Boolean);
  } else if (pending?.get("intent") === "remove") {
    media = media.filter((m) => m.id !== pending.get("mediaId"));
  }
  const ids = media.map((m) => m.id);
  const moved = (from: number, to: number) => {
    const next = [...ids];
    const [it] = next.splice(from, 1);
    next.splice(to, 0, it);
    return next.join(",");
  };
  const choices = product.productOptions.flatMap((o) => o.choices.map((c) => ({ option: o.name, choice: c.description, mediaIds: c.mediaIds })));

  return (
    <>
      <PageHead title={`Media of ${product.name}`} back={["/console/products", "Products"]} />
      <p className="console-muted">
        The first image is the main image, shown on product cards and first on the product page.
        {product.visible && (
          <>
            {" "}
            <a href={`/products/${product.slug}`} target="_blank" rel="noopener">
              View in shop
            </a>
          </>
        )}
      </p>
      <Notice text={itemResult?.ok} />
      {itemResult?.problem && (
        <ErrorSummary problem={itemResult.problem} fieldIds={itemResult.values.mediaId ? { altText: `alt-${itemResult.values.mediaId}` } : {}} />
      )}
      {!canWrite && (
        <p className="console-muted">Changing media needs the permission to “Edit products, collections and media” from the store owner.</p>
      )}
      {canWrite && <MediaUpload productId={product.id} pageResult={result?.intent === "upload" ? result : undefined} />}

      <h2>Images ({media.length})</h2>
      {media.length === 0 ? (
        <p className="console-muted">No images yet.</p>
      ) : (
        <ol className="media-list">
          {media.map((m, i) => (
            <MediaItem
              key={m.id}
              m={m}
              i={i}
              count={media.length}
              productName={product.name}
              options={product.productOptions}
              choices={choices}
              canWrite={canWrite}
              itemResult={itemResult}
              moved={moved}
            />
          ))}
        </ol>
      )}
    </>
  );
}
