import { describe, expect, it } from 'vitest';
import { compileScripts, notScripted } from '#sdk/testing/scripted-responses.ts';

const scripts = {
  'GET /people/v2/lists/1/people': { json: 'any query' },
  'GET /people/v2/lists/1/people?offset=100&per_page=100': { json: 'second page' },
  'post /api/messages': { status: 201 },
};
const find = compileScripts(scripts);
const at = (method: string, url: string) => find(method, new URL(url, 'https://host.example'));

describe('compileScripts()', () => {
  it('matches a key without a query whatever the query, and a key with one exactly, in any order', () => {
    expect(at('GET', '/people/v2/lists/1/people')).toBe(scripts['GET /people/v2/lists/1/people']);
    expect(at('GET', '/people/v2/lists/1/people?per_page=100')).toBe(scripts['GET /people/v2/lists/1/people']);
    expect(at('GET', '/people/v2/lists/1/people?per_page=100&offset=100')).toBe(
      scripts['GET /people/v2/lists/1/people?offset=100&per_page=100'],
    );
  });

  it('needs the method and the whole path to match (the method key is case-insensitive) [no match]', () => {
    expect(at('POST', '/api/messages')).toBe(scripts['post /api/messages']);
    expect([at('GET', '/api/messages'), at('POST', '/api/messages/1'), at('GET', '/people/v2/lists/1')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('falls back to nothing when only a key with another query exists [query]', () => {
    const only = compileScripts({ 'GET /x?page=2': { json: 2 } });
    expect([only('GET', new URL('https://h.example/x?page=1')), only('GET', new URL('https://h.example/x'))]).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('throws for a key that is not "METHOD /path" [malformed]', () => {
    for (const key of ['/x', 'GET x', 'GET  /x', 'GET /x y']) {
      expect(() => compileScripts({ [key]: {} })).toThrow(
        `startAddonTest: response key ${JSON.stringify(key)} is not "METHOD /path"`,
      );
    }
  });
});

describe('notScripted()', () => {
  it('is a 404 with the not_scripted error envelope naming the call', () => {
    expect(notScripted('GET', '/x?y=1')).toEqual({
      status: 404,
      statusText: 'Not Found',
      json: {
        errors: [
          { status: '404', code: 'not_scripted', title: 'Not scripted', detail: 'No scripted response for GET /x?y=1' },
        ],
      },
    });
  });
});
