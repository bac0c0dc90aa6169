/** The merchant task inbox: what other folders, the pages and the entry use. */
export {
  completeTask,
  listTasks,
  openTasksCountRead,
  reopenTask,
  resolveTaskStatement,
  taskShape,
  taskStatement,
  unpaidOrderCanceledTask,
  type NewTask,
} from "./tasks";
export { taskRoutes } from "./routes";
