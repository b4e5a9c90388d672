/** The people product's door: its API router, the List scheduler, a List run and what pages outside it read. */
export { peopleRouter } from './people-router.ts';
export { startListScheduler } from './list-scheduler.ts';
export { runList } from './run-list.ts';
export { personResource } from './person-resource.ts';
export { firstListId, listSummaries, listsNeverRun, type ListSummary } from './list-summaries.ts';
export {
  listDetails,
  listPeoplePage,
  type ListDetails,
  type ListPerson,
  type ListRuleSummary,
} from './list-details.ts';
export {
  addListWithRules,
  campusIdsOf,
  ensureCampuses,
  ensureListCategories,
  listCategoryIdByName,
  type NewList,
} from './bulk-writes.ts';
