/**
 * What the demo's List page shows of the List (beside its add-ons): the header with its size, when it last ran and
 * whether that is still current, its rules as the people API names them, and its people a page at a time.
 */
import type { VNode } from 'preact';
import type { ListDetails, ListPerson, ListRuleSummary } from '../people/index.ts';
import { Banner, shownTime, Table } from '../pages/render.tsx';

/** People shown per page of a List. */
export const LIST_PAGE_SIZE = 50;

/** A time as the List page shows it: UTC to the minute, machine-readable in `datetime`. */
function Time({ at }: { at: Date }): VNode {
  const iso = new Date(at).toISOString();
  return <time dateTime={iso}>{shownTime(iso)}</time>;
}

/** The List's name, description and size. */
export function ListHeader({ list }: { list: ListDetails }): VNode {
  return (
    <>
      <div class="ak-page-header">
        <p class="ak-eyebrow">
          <a href="/demo/lists">
            <span aria-hidden="true">← </span>All Lists
          </a>
        </p>
        <h1>{list.name}</h1>
        {list.description ? <p class="ak-lede">{list.description}</p> : null}
      </div>
      <p class="ak-stat">
        <span>
          <strong id="list-people-count">
            {list.refreshed_at
              ? `${list.total_people} ${list.total_people === 1 ? 'person' : 'people'}`
              : 'This List has not run yet.'}
          </strong>
        </span>
      </p>
    </>
  );
}

/** What each run status tells a reader of the List's people (docs/people-api.md, States). */
const STATUS_MEANING: Record<string, string> = {
  never_run: 'It has not run yet, so it has no people.',
  complete: 'Its people are those its rules found at the last run.',
  stale: 'Its rules or settings changed after it last ran: the people below may no longer match them.',
  failed: 'Its last run found a rule it cannot evaluate: the people below are from the run before.',
};

/** When the List last ran, its status, its auto-refresh, and a banner when its people are not current. */
export function ListRunState({ list }: { list: ListDetails }): VNode {
  const outdated = list.status === 'stale' || list.status === 'failed';
  return (
    <section aria-labelledby="list-run-title">
      <h2 id="list-run-title">Last run</h2>
      {outdated ? (
        <Banner tone="warning" id="list-outdated" title={list.status === 'stale' ? 'Stale' : 'The last run failed'}>
          <p>
            {STATUS_MEANING[list.status]} Run it again (<code>POST /people/v2/lists/{list.id}/run</code>) to bring them
            up to date.
          </p>
        </Banner>
      ) : null}
      {list.refresh_due ? (
        <Banner tone="info" id="list-refresh-due">
          <p>Due for its {list.auto_refresh_frequency} refresh: the List scheduler runs it on its next pass.</p>
        </Banner>
      ) : null}
      <dl class="ak-facts" id="list-run">
        <dt>Last run</dt>
        <dd>{list.refreshed_at ? <Time at={list.refreshed_at} /> : 'Never'}</dd>
        <dt>Status</dt>
        <dd>
          <span class="ak-badge">{list.status}</span> {STATUS_MEANING[list.status] ?? ''}
        </dd>
        <dt>Auto-refresh</dt>
        <dd>{list.auto_refresh ? list.auto_refresh_frequency : 'off: it runs only when asked'}</dd>
      </dl>
    </section>
  );
}

/** Who the rules select, in words: all or any of them, which ages, inactive people or not. */
function rulesIntro(list: ListDetails): string {
  const returns =
    list.returns === 'adults' ? 'Adults (18 and over)' : list.returns === 'children' ? 'Children (under 18)' : 'People';
  const inactive = list.include_inactive ? 'inactive people included' : 'inactive people left out';
  return `${returns} matching ${list.subset === 'any' ? 'any' : 'all'} of these rules (${inactive}):`;
}

/** The List's rules in position order, as the people API's Rule resource names them. */
export function ListRules({ list }: { list: ListDetails }): VNode {
  return (
    <section aria-labelledby="list-rules-title">
      <h2 id="list-rules-title">Rules</h2>
      {list.rules.length ? (
        <>
          <p>{rulesIntro(list)}</p>
          <Table label="Rules">
            <thead>
              <tr>
                <th scope="col">Attribute</th>
                <th scope="col">Operator</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {list.rules.map((r: ListRuleSummary, i) => (
                <tr key={i}>
                  <td class="ak-mono">{r.attribute}</td>
                  <td class="ak-mono">{r.operator}</td>
                  <td class="ak-mono">{r.value}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        </>
      ) : (
        <p class="ak-empty">This List has no rules, so it finds no one.</p>
      )}
    </section>
  );
}

/** One page of the List's people: who and since when, with links to the pages before and after. */
export function ListPeople(props: { list: ListDetails; people: ListPerson[]; total: number; page: number }): VNode {
  const { list, people, total, page } = props;
  const first = (page - 1) * LIST_PAGE_SIZE + 1;
  return (
    <section aria-labelledby="list-people-title">
      <h2 id="list-people-title">People</h2>
      {people.length ? (
        <>
          <Table label="People of the List">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">On the List since</th>
              </tr>
            </thead>
            <tbody>
              {people.map((p) => (
                <tr key={p.id} data-person-id={p.id}>
                  <td>{`${p.first_name} ${p.last_name}`}</td>
                  <td>
                    <Time at={p.added_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
          <nav class="ak-pager" aria-label="Pages of people">
            <p id="list-people-range">{`People ${first}–${first + people.length - 1} of ${total}`}</p>
            {page > 1 ? (
              <a rel="prev" href={`/demo/lists/${list.id}${page > 2 ? `?page=${page - 1}` : ''}`}>
                Previous {LIST_PAGE_SIZE}
              </a>
            ) : null}
            {first + people.length - 1 < total ? (
              <a rel="next" href={`/demo/lists/${list.id}?page=${page + 1}`}>
                Next {Math.min(LIST_PAGE_SIZE, total - (first + people.length - 1))}
              </a>
            ) : null}
          </nav>
        </>
      ) : (
        <p class="ak-empty">{list.refreshed_at ? 'No one is on this List.' : 'This List has not run yet.'}</p>
      )}
    </section>
  );
}
