import { Hono } from "hono";
import { pathId, type AppContext, type AppEnv } from "#worker/platform/http";
import { readQueryRequest } from "#worker/platform/query";
import { badField } from "#worker/platform/errors";
import { readJson } from "#worker/platform/validation";
import { getItem, insertItem, queryItems, removeItem, updateItem } from "./items";

/**
 * Wix Data's items API, at /wix-data/v2 (the Wix SDK's gateway path):
 *
 *   GET  /items/query?.r=<base64url JSON> | POST /items/query   public   -> {dataItems, pagingMetadata}
 *   GET  /items/{id}?dataCollectionId=                         public   -> {dataItem}
 *   POST /items                {dataCollectionId, dataItem}     cms.write -> {dataItem}
 *   POST /items/update | PUT /items/{id}                        cms.write -> {dataItem}
 *   POST /items/remove {dataCollectionId, dataItemId} | DELETE /items/{id}?dataCollectionId=   cms.write -> {dataItem}
 */
export const cmsRoutes = new Hono<AppEnv>();

async function body(c: AppContext): Promise<Record<string, unknown>> {
  const value = await readJson(c);
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw badField("body", "must be a JSON object");
  return value as Record<string, unknown>;
}

const query = async (c: AppContext) => c.json(await queryItems(c.get("ctx"), await readQueryRequest(c)));
cmsRoutes.get("/items/query", query);
cmsRoutes.post("/items/query", query);
cmsRoutes.post("/items/update", async (c) => c.json(await updateItem(c.get("ctx"), await body(c))));
cmsRoutes.post("/items/remove", async (c) => {
  const b = await body(c);
  return c.json(await removeItem(c.get("ctx"), b.dataCollectionId, b.dataItemId));
});
cmsRoutes.get("/items/:id", async (c) => c.json(await getItem(c.get("ctx"), c.req.query("dataCollectionId"), pathId(c))));
cmsRoutes.post("/items", async (c) => c.json(await insertItem(c.get("ctx"), await body(c))));
cmsRoutes.put("/items/:id", async (c) => c.json(await updateItem(c.get("ctx"), await body(c), pathId(c))));
cmsRoutes.delete("/items/:id", async (c) => c.json(await removeItem(c.get("ctx"), c.req.query("dataCollectionId"), pathId(c))));
