import { Link, useRouteLoaderData, useSearchParams } from "react-router";
import type { loader as layoutLoader } from "#web/routes/console/layout";

/**
 * The products table's CSV links: "Export CSV" downloads what the current filters match (any staff member);
 * "Import CSV" is shown only to those who may change the catalogue (the import itself checks it again).
 */
export function ProductsCsvLinks() {
  const [params] = useSearchParams();
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const filters = new URLSearchParams(params);
  filters.delete("page");
  const query = filters.toString();
  return (
    <>
      <a href={`/console/products/export.csv${query ? `?${query}` : ""}`} className="console-button" download>
        Export CSV
      </a>
      {user?.permissions.includes("catalog.write") && (
        <Link to="/console/products/import" className="console-button">
          Import CSV
        </Link>
      )}
    </>
  );
}
