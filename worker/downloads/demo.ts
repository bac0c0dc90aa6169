import { and, eq, notExists } from "drizzle-orm";
import { products } from "#worker/catalog";
import { nowIso, requirePermission, type Ctx } from "#worker/platform/context";
import { newId } from "#worker/platform/ids";
import { runBatch, type Statement } from "#worker/platform/unit-of-work";
import { digitalFiles } from "./tables";

/**
 * The demo catalogue's promise ("a download link is emailed right after checkout"): each digital product without a
 * file gets a small PDF naming it, so a demo order has something to download.
 */

/** A one-page PDF showing these lines of text (Helvetica, PDF 1.4). */
export function textPdf(lines: string[]): Uint8Array {
  const safe = (s: string) => s.replace(/[^\x20-\x7e]/g, "?").replace(/([()\\])/g, "\\$1");
  const text = lines.map((l, i) => `BT /F1 ${i === 0 ? 20 : 12} Tf 56 ${780 - i * 28} Td (${safe(l)}) Tj ET`).join("\n");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/** Attaches a demo PDF to every digital product that has no file yet; answers how many it attached. */
export async function attachDemoFiles(ctx: Ctx): Promise<number> {
  requirePermission(ctx, "catalog.write");
  const bare = await ctx.db
    .select({ id: products.id, name: products.name, slug: products.slug, description: products.description })
    .from(products)
    .where(
      and(
        eq(products.productType, "digital"),
        notExists(ctx.db.select({ id: digitalFiles.id }).from(digitalFiles).where(eq(digitalFiles.productId, products.id))),
      ),
    );
  const statements: Statement[] = [];
  for (const p of bare) {
    const id = newId();
    const objectKey = `downloads/${p.id}/${id}`;
    const bytes = textPdf([p.name, p.description.slice(0, 90), "A demo file from the Edge Storefront demo catalogue."]);
    await ctx.env.DOWNLOADS.put(objectKey, bytes, {
      httpMetadata: { contentType: "application/pdf" },
      customMetadata: { fileName: `${p.slug}.pdf` },
    });
    statements.push(
      ctx.db
        .insert(digitalFiles)
        .values({
          id,
          productId: p.id,
          variantId: "",
          objectKey,
          fileName: `${p.slug}.pdf`,
          contentType: "application/pdf",
          size: bytes.byteLength,
          createdDate: nowIso(),
        })
        .onConflictDoNothing(),
    );
  }
  if (statements.length) await runBatch(ctx.db, statements);
  return statements.length;
}
