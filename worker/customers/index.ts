/** Customers: members and guests merged by email, their figures, orders, carts and staff notes, and their routes. */
export { addCustomerNote, customerPageSql, exportCustomersCsv, getCustomer, listCustomers, CUSTOMER_PAGE_SIZE } from "./customers";
export type { CustomerCart, CustomerDetail, CustomerNote, CustomerOrder, CustomerSummary } from "./customers";
export { customerRoutes } from "./routes";
export { customerNotes } from "./tables";
