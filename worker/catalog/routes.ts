import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { z } from "zod";
import { requirePermission, type Ctx } from "#worker/platform/context";
import { ApiError, badField, bareNotFound } from "#worker/platform/errors";
import { pathId, type AppEnv } from "#worker/platform/http";
import { readQueryRequest } from "#worker/platform/query";
import { parseWith, queryFlag, readBody } from "#worker/platform/validation";
import { bulkAdjustProducts, bulkUpdateProducts } from "./bulk";
import { catalogJson } from "./cache";
import {
  changeMembership,
  checkSlugParam,
  createCollection,
  deleteCollection,
  getCollection,
  queryCollections,
  updateCollection,
} from "./collections";
import { addProductMedia, removeProductMedia, setChoiceMedia } from "./product-media";
import { getProduct, getProductV3, productOptionsAvailability } from "./product-pages";
import { getStoreVariant, queryProducts, queryProductsV3, queryProductVariants, queryStoreVariants } from "./product-queries";
import { deleteProductOptions, resetProductVariants, updateProductVariants } from "./product-variants";
import { createProduct, deleteProduct, removeProductField, updateProduct } from "./product-writes";
import {
  bulkAdjustRequest,
  bulkUpdateRequest,
  choiceMediaRequest,
  collectionInputSchema,
  collectionPatchSchema,
  createProductRequest,
  mediaIdsRequest,
  mediaRequest,
  productIdsRequest,
  updateProductRequest,
  variantsPatchRequest,
} from "./schemas";

/**
 * Catalogue routes. Each router is mounted at the Wix REST path and at the gateway prefix the Wix SDK uses:
 * read at /v1 and /stores-reader/v1, write at /v1 and /stores/v1, collections v2 at /v2.
 */

const queryShape = z
  .object({ filter: z.unknown().optional(), sort: z.unknown().optional(), paging: z.unknown().optional(), search: z.unknown().optional() })
  .optional();

const productQueryRequest = z.object({
  query: queryShape,
  includeVariants: z.boolean().optional(),
  includeHiddenProducts: z.boolean().optional(),
  includeMerchantSpecificData: z.boolean().optional(),
});

const optionsAvailabilityRequest = z.object({ options: z.record(z.string().max(50), z.string().max(50)).default({}) });

const variantsQueryRequest = z.object({
  choices: z.record(z.string().max(50), z.string().max(50)).optional(),
  variantIds: z.array(z.string().max(100)).max(1000).optional(),
  paging: z.object({ limit: z.number().int().min(0).max(100).optional(), offset: z.number().int().min(0).optional() }).optional(),
  includeMerchantSpecificData: z.boolean().optional(),
});

const wrappedQuery = z.object({ query: queryShape });

/** Catalogue reads: /v1 and /stores-reader/v1. */
export const catalogRead = new Hono<AppEnv>()
  .on(["GET", "POST"], "/products/query-platformized", async (c) => {
    // Variants come back unless the caller says includeVariants: false (Wix's default; older SDKs cannot ask).
    const parsed = parseWith(productQueryRequest, await readQueryRequest(c));
    const req = { ...parsed, includeVariants: parsed.includeVariants ?? true };
    return catalogJson(c, "queryProducts", req, () => queryProducts(c.get("ctx"), req as Parameters<typeof queryProducts>[1]));
  })
  .on(["GET", "POST"], "/products/query", async (c) => {
    const req = parseWith(productQueryRequest, await readQueryRequest(c));
    return catalogJson(c, "queryProducts", req, () => queryProducts(c.get("ctx"), req as Parameters<typeof queryProducts>[1]));
  })
  .get("/products/:id", async (c) => {
    const id = pathId(c);
    const merchantData = queryFlag(c, "includeMerchantSpecificData");
    return catalogJson(c, "getProduct", [id, merchantData], async () => ({ product: await getProduct(c.get("ctx"), id, merchantData) }));
  })
  .post("/products/:id/productOptionsAvailability", async (c) => {
    const { options } = await readBody(c, optionsAvailabilityRequest);
    return c.json(await productOptionsAvailability(c.get("ctx"), pathId(c), options));
  })
  .post("/products/:id/variants/query", async (c) =>
    c.json(await queryProductVariants(c.get("ctx"), pathId(c), await readBody(c, variantsQueryRequest))),
  )
  .on(["GET", "POST"], "/variants/query", async (c) => {
    const { query } = parseWith(wrappedQuery, await readQueryRequest(c));
    return c.json(await queryStoreVariants(c.get("ctx"), query));
  })
  .get("/variants/:id", async (c) => c.json({ variant: await getStoreVariant(c.get("ctx"), pathId(c)) }))
  .get("/collections/slug/:slug", async (c) => {
    const slug = pathId(c, "slug");
    checkSlugParam(slug);
    return catalogJson(c, "getCollection", { slug }, async () => ({ collection: await collectionBySlug(c.get("ctx"), slug) }));
  });

/**
 * A collection by slug; a miss is a bare 404 (`details` without an applicationError), as Wix answers it, so the SDK
 * reports `applicationError.code === 404`, the one not-found a headless site tells apart from a failure.
 */
async function collectionBySlug(ctx: Ctx, slug: string) {
  try {
    return await getCollection(ctx, { slug });
  } catch (err) {
    if (err instanceof ApiError && err.code === "COLLECTION_NOT_FOUND") throw bareNotFound(`Collection with slug "${slug}" not found`);
    throw err;
  }
}

/** Collections v2 reads: /v2/collections and /stores-reader/v2/collections (older SDKs). */
export const collectionsV2 = new Hono<AppEnv>()
  .on(["GET", "POST"], "/query", async (c) => {
    const { query } = parseWith(wrappedQuery, await readQueryRequest(c));
    return catalogJson(c, "queryCollections", query ?? null, () => queryCollections(c.get("ctx"), query));
  })
  .get("/slug/:slug", async (c) => {
    const slug = pathId(c, "slug");
    checkSlugParam(slug);
    return catalogJson(c, "getCollection", { slug }, async () => ({ collection: await collectionBySlug(c.get("ctx"), slug) }));
  })
  .get("/:id", async (c) => {
    const id = pathId(c);
    return catalogJson(c, "getCollection", { id }, async () => ({ collection: await getCollection(c.get("ctx"), { id }) }));
  });

/** Catalogue V3 reads: /stores/v3 and /v3. */
export const catalogV3 = new Hono<AppEnv>()
  .on(["GET", "POST"], "/products/query", async (c) => {
    const body = parseWith(
      z.object({
        query: z
          .object({
            filter: z.unknown().optional(),
            sort: z.unknown().optional(),
            cursorPaging: z.object({ limit: z.number().int().min(1).max(100).optional(), cursor: z.string().max(200).nullish() }).optional(),
          })
          .optional(),
      }),
      await readQueryRequest(c),
    );
    return catalogJson(c, "queryProductsV3", body, () => queryProductsV3(c.get("ctx"), body as Parameters<typeof queryProductsV3>[1]));
  })
  .get("/products/:id", async (c) => {
    const id = pathId(c);
    return catalogJson(c, "getProductV3", id, async () => ({ product: await getProductV3(c.get("ctx"), id) }));
  });

const ok = {} as const;

/**
 * Every write checks the caller before it reads the body: an anonymous or unknown caller gets 401 whatever it sent,
 * and learns nothing from validation errors. Added per route (not `use("*")`), because this router shares its /v1
 * mount with the reads and the unknown-path 404.
 */
const merchantOnly = createMiddleware<AppEnv>(async (c, next) => {
  requirePermission(c.get("ctx"), "catalog.write");
  await next();
});

/** Catalogue writes: /v1 and /stores/v1. Every handler needs the merchant (checked in the service). */
export const catalogWrite = new Hono<AppEnv>()
  .post("/products", merchantOnly, async (c) => {
    const { product } = await readBody(c, createProductRequest);
    return c.json({ product: await createProduct(c.get("ctx"), product) });
  })
  .patch("/products/:id", merchantOnly, async (c) => {
    const { product } = await readBody(c, updateProductRequest);
    if (product.id && product.id !== pathId(c)) throw badField("product.id", "must match the id in the path");
    return c.json({ product: await updateProduct(c.get("ctx"), pathId(c), product) });
  })
  .delete("/products/:id", merchantOnly, async (c) => {
    await deleteProduct(c.get("ctx"), pathId(c));
    return c.json(ok);
  })
  .patch("/products/:id/variants", merchantOnly, async (c) => {
    const { variants } = await readBody(c, variantsPatchRequest);
    return c.json(await updateProductVariants(c.get("ctx"), pathId(c), variants));
  })
  .post("/products/:id/variants/resetToDefault", merchantOnly, async (c) => {
    await resetProductVariants(c.get("ctx"), pathId(c));
    return c.json(ok);
  })
  .post("/products/:id/media", merchantOnly, async (c) => {
    const { media } = await readBody(c, mediaRequest);
    await addProductMedia(c.get("ctx"), pathId(c), media);
    return c.json(ok);
  })
  .post("/products/:id/media/delete", merchantOnly, async (c) => {
    const { mediaIds } = await readBody(c, mediaIdsRequest);
    await removeProductMedia(c.get("ctx"), pathId(c), mediaIds);
    return c.json(ok);
  })
  .patch("/products/:id/choices/media", merchantOnly, async (c) => {
    const { media } = await readBody(c, choiceMediaRequest);
    await setChoiceMedia(c.get("ctx"), pathId(c), media, "add");
    return c.json(ok);
  })
  .post("/products/:id/choices/media/delete", merchantOnly, async (c) => {
    const { media } = await readBody(c, choiceMediaRequest);
    await setChoiceMedia(c.get("ctx"), pathId(c), media, "remove");
    return c.json(ok);
  })
  .delete("/products/:id/options", merchantOnly, async (c) => {
    await deleteProductOptions(c.get("ctx"), pathId(c));
    return c.json(ok);
  })
  .post("/products/:id/remove-brand", merchantOnly, async (c) => {
    await removeProductField(c.get("ctx"), pathId(c), "brand");
    return c.json(ok);
  })
  .post("/products/:id/remove-ribbon", merchantOnly, async (c) => {
    await removeProductField(c.get("ctx"), pathId(c), "ribbon");
    return c.json(ok);
  })
  .post("/collections", merchantOnly, async (c) => {
    const { collection } = await readBody(c, z.object({ collection: collectionInputSchema }));
    return c.json({ collection: await createCollection(c.get("ctx"), collection) });
  })
  .patch("/collections/:id", merchantOnly, async (c) => {
    const { collection } = await readBody(c, z.object({ collection: collectionPatchSchema }));
    if (collection.id && collection.id !== pathId(c)) throw badField("collection.id", "must match the id in the path");
    return c.json({ collection: await updateCollection(c.get("ctx"), pathId(c), collection) });
  })
  .delete("/collections/:id", merchantOnly, async (c) => {
    await deleteCollection(c.get("ctx"), pathId(c));
    return c.json(ok);
  })
  .post("/collections/:id/productIds", merchantOnly, async (c) => {
    const { productIds } = await readBody(c, productIdsRequest);
    await changeMembership(c.get("ctx"), pathId(c), productIds, "add");
    return c.json(ok);
  })
  .post("/collections/:id/productIds/delete", merchantOnly, async (c) => {
    const { productIds } = await readBody(c, productIdsRequest);
    await changeMembership(c.get("ctx"), pathId(c), productIds, "remove");
    return c.json(ok);
  })
  .post("/bulk/products/update", merchantOnly, async (c) => c.json(await bulkUpdateProducts(c.get("ctx"), await readBody(c, bulkUpdateRequest))))
  .post("/bulk/products/adjust-properties", merchantOnly, async (c) =>
    c.json(await bulkAdjustProducts(c.get("ctx"), await readBody(c, bulkAdjustRequest))),
  );
