/**
 * Sample add-on for the `people.list.send_message` extension: reads the list's people through the host API,
 * lets the person write a message, and sends it to the integrator's API. Built as a classic worker script.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  Banner,
  Button,
  Checkbox,
  List,
  ListItem,
  Spinner,
  Stack,
  Text,
  TextArea,
  addOnContext,
  authenticatedFetch,
  authenticatedIntegratorFetch,
  render,
} from '../worker/index.ts';

interface Person {
  id: string;
  name: string;
}
/**
 * People rendered per UI update: every person of the List is listed, in steps, so no single update comes
 * near the protocol's 256 KiB limit on one UI batch (a dropped batch would leave the list empty).
 */
const RENDER_STEP = 200;
type Result = { kind: 'sent'; text: string } | { kind: 'error'; text: string };

/** Reads the people of a List (JSON:API), following `links.next` page by page. */
async function loadPeople(listId: string): Promise<Person[]> {
  const people: Person[] = [];
  let next: string | undefined = `/people/v2/lists/${encodeURIComponent(listId)}/people?per_page=100`;
  while (next) {
    const response = await authenticatedFetch(next);
    if (!response.ok) throw new Error(`Could not read the list's people (HTTP ${response.status})`);
    const document = (await response.json()) as {
      data: Array<{ id: string; attributes: { first_name?: string; last_name?: string } }>;
      links?: { next?: string };
    };
    people.push(
      ...document.data.map((p) => ({
        id: p.id,
        name: `${p.attributes.first_name ?? ''} ${p.attributes.last_name ?? ''}`.trim(),
      })),
    );
    next = document.links?.next;
  }
  return people;
}

/** Sends the message through the integrator's API. */
async function sendMessage(listId: string, personIds: string[], message: string): Promise<Result> {
  const response = await authenticatedIntegratorFetch('/api/messages', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ list_id: listId, person_ids: personIds, message }),
  });
  // The template integrator answers `{data: {id, …}}`; a bare `{id}` is accepted too.
  const body = (await response.json().catch(() => null)) as {
    id?: string | number;
    data?: { id?: string | number };
  } | null;
  if (!response.ok) return { kind: 'error', text: `The integrator refused the message (HTTP ${response.status})` };
  return {
    kind: 'sent',
    text: `Message ${String(body?.data?.id ?? body?.id ?? '')} sent to ${personIds.length} ${personIds.length === 1 ? 'person' : 'people'}.`,
  };
}

/**
 * The List's people, loaded once; `shown` grows by RENDER_STEP after each render until all are listed. A failed
 * load is reported through `onError`.
 */
function usePeople(listId: string, onError: (result: Result) => void) {
  const [people, setPeople] = useState<Person[] | null>(null);
  const [shown, setShown] = useState(RENDER_STEP);

  useEffect(() => {
    loadPeople(listId).then(setPeople, (error: Error) => onError({ kind: 'error', text: error.message }));
  }, [listId]);

  useEffect(() => {
    if (!people || shown >= people.length) return;
    const timer = setTimeout(() => setShown(shown + RENDER_STEP), 0);
    return () => clearTimeout(timer);
  }, [people, shown]);

  return { people, shown };
}

/** The people unticked, and each person's checkbox handler. */
function useExclusions() {
  const [excluded, setExcluded] = useState<Set<string>>(new Set());
  // One handler per person for the add-on's lifetime: a new function each render would be a new host callback.
  const toggles = useRef(new Map<string, (checked: boolean) => void>());
  const toggle = (id: string) => {
    let handler = toggles.current.get(id);
    if (!handler) {
      handler = (checked) =>
        setExcluded((current) => {
          const next = new Set(current);
          if (checked) next.delete(id);
          else next.add(id);
          return next;
        });
      toggles.current.set(id, handler);
    }
    return handler;
  };
  return { excluded, toggle };
}

function SendMessage() {
  const listId = String((addOnContext().props.listId as string | number | undefined) ?? '');
  const [result, setResult] = useState<Result | null>(null);
  const { people, shown } = usePeople(listId, setResult);
  const { excluded, toggle } = useExclusions();
  const [message, setMessage] = useState('');
  const [sending, setSending] = useState(false);

  const recipients = (people ?? []).filter((p) => !excluded.has(p.id));
  const send = async () => {
    setSending(true);
    setResult(null);
    try {
      const sent = await sendMessage(
        listId,
        recipients.map((p) => p.id),
        message,
      );
      setResult(sent);
      // Sent: the box is ready for the next message. Refused: the text stays, to send again.
      if (sent.kind === 'sent') setMessage('');
    } catch (error) {
      setResult({ kind: 'error', text: `Sending failed: ${(error as Error).message}` });
    } finally {
      setSending(false);
    }
  };

  // The message and its result first, the recipients after: the outcome stays in view however long the List is.
  // No heading of its own: the host shows the extension's title ("Send a message") above the add-on.
  return (
    <Stack gap="medium">
      {people === null && result === null ? <Spinner label="Loading people…" /> : null}
      {people !== null ? (
        <>
          <TextArea label="Message" value={message} onInput={setMessage} placeholder="Write your message" />
          <Button
            variant="primary"
            disabled={sending || message.trim() === '' || recipients.length === 0}
            onPress={() => void send()}
          >
            {sending ? 'Sending…' : 'Send message'}
          </Button>
        </>
      ) : null}
      {result ? <Banner tone={result.kind === 'sent' ? 'success' : 'critical'}>{result.text}</Banner> : null}
      {people !== null ? (
        <>
          <Text tone="subdued">{`${recipients.length} of ${people.length} people selected`}</Text>
          <List>
            {people.slice(0, shown).map((p) => (
              <ListItem key={p.id}>
                <Checkbox label={p.name} checked={!excluded.has(p.id)} onChange={toggle(p.id)} />
              </ListItem>
            ))}
          </List>
        </>
      ) : null}
    </Stack>
  );
}

render(<SendMessage />);
