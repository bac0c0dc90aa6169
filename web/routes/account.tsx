import { Outlet } from "react-router";

// Placeholder layout while the account pages are being built (replaced by its owner in this change).
export default function AccountLayout() {
  return <Outlet />;
}
