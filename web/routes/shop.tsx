// Placeholder while this page is being built (replaced by its owner in this change).
export function loader() {
  throw new Response("Not found", { status: 404 });
}

export default function Placeholder() {
  return null;
}
