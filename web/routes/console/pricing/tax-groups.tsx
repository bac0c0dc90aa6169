import { consoleMeta } from "#web/components/console/title";

export const meta = consoleMeta("Tax groups — Tax — Pricing — Console");
export { taxGroupsLoader as loader } from "#web/components/console/pricing/lists.server";
export { PricingListPage as default } from "#web/components/console/pricing/lists";
