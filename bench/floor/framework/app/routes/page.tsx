// The prepared page: the same markup as the data-mode floor's Page (../../../worker.js). The loader returns only the
// title and the cards, so they alone are serialised into the hydration data; the padding that makes the page exactly
// its size is read from the module map by name, so it is rendered once and not serialised too.
import { pages } from "../pages";
import type { Route } from "./+types/page";

export const meta: Route.MetaFunction = () => [{ title: "Floor" }];

export function loader({ params }: Route.LoaderArgs) {
  const page = pages.get(params.name);
  if (page === undefined) throw new Response("Not found", { status: 404 });
  return { title: params.name, items: page.items };
}

export default function Page({ loaderData: { title, items }, params }: Route.ComponentProps) {
  const padding = pages.get(params.name)?.padding ?? "";
  return (
    <main>
      <h1>{title}</h1>
      <ul className="grid">
        {items.map((p) => (
          <li key={p.id}>
            <a href={p.href}>
              <img src={p.image} alt="" width={400} height={400} />
              <h2>{p.name}</h2>
              <p>{p.price}</p>
            </a>
          </li>
        ))}
      </ul>
      {/* The padding is on the server only: a browser hydrating the page keeps the server's text. */}
      <p suppressHydrationWarning>{padding}</p>
    </main>
  );
}
