import { Form } from "react-router";
import { PERMISSION_LABELS, type Permission } from "#worker/platform/context";

/** The signed-in person in the console's header: who (their permissions on hover), the shop, and signing out. */
export function UserMenu({ user }: { user: { email: string | null; role: string; permissions: readonly Permission[] } }) {
  return (
    <div className="console-user">
      <span title={user.permissions.map((p) => PERMISSION_LABELS[p]).join("\n") || "View only"}>
        {user.email} <span className="console-role">{user.role === "OWNER" ? "Owner" : "Staff"}</span>
      </span>
      <a href="/" className="console-muted">
        View shop
      </a>
      <Form method="post" action="/console/logout" className="console-signout">
        <button type="submit" className="console-link-button">
          Sign out
        </button>
        <button
          type="submit"
          name="scope"
          value="everywhere"
          className="console-link-button"
          title="Also ends your sessions in other browsers and apps"
        >
          Sign out everywhere
        </button>
      </Form>
    </div>
  );
}
