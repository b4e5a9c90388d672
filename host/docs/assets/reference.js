// Starts Swagger UI on /docs with the document the page names (an external script: the page's CSP allows no
// inline script). The host renders the navigation between APIs; this only mounts the chosen document, with request
// samples in curl (Swagger UI's own), JavaScript (fetch) and Python (requests).
(function () {
  var root = document.getElementById('reference');
  if (!root || typeof window.SwaggerUIBundle !== 'function') return;

  /** The request's headers as [name, value] pairs (Swagger UI hands an Immutable Map, or a plain object). */
  function headersOf(request) {
    var headers = request.get('headers');
    if (!headers) return [];
    var plain = typeof headers.toJS === 'function' ? headers.toJS() : headers;
    return Object.keys(plain).map(function (name) {
      return [name, String(plain[name])];
    });
  }

  /** The request's body: a string as sent, a form as [name, value] pairs, a file by its name, or undefined. */
  function bodyOf(request) {
    var body = request.get('body');
    if (body === undefined || body === null || body === '') return undefined;
    if (typeof body === 'string') return { text: body };
    if (typeof File !== 'undefined' && body instanceof File) return { file: body.name };
    if (typeof body.toJS === 'function') body = body.toJS();
    if (typeof body === 'object') {
      return {
        form: Object.keys(body).map(function (name) {
          var value = body[name];
          return [name, value && typeof value === 'object' && 'name' in value ? value.name : String(value)];
        }),
      };
    }
    return { text: String(body) };
  }

  var q = JSON.stringify;

  /** `fetch` in JavaScript (a JSON string literal is a JavaScript string literal). */
  function javascriptFetch(request) {
    var method = String(request.get('method')).toUpperCase();
    var headers = headersOf(request);
    var body = bodyOf(request);
    var lines = [];
    if (body && body.form) {
      lines.push('const form = new FormData();');
      body.form.forEach(function (pair) {
        lines.push('form.append(' + q(pair[0]) + ', ' + q(pair[1]) + ');');
      });
    }
    lines.push('const response = await fetch(' + q(String(request.get('url'))) + ', {');
    lines.push('  method: ' + q(method) + ',');
    if (headers.length) {
      lines.push('  headers: {');
      headers.forEach(function (pair) {
        lines.push('    ' + q(pair[0]) + ': ' + q(pair[1]) + ',');
      });
      lines.push('  },');
    }
    if (body && body.text !== undefined) lines.push('  body: ' + q(body.text) + ',');
    if (body && body.form) lines.push('  body: form,');
    if (body && body.file) lines.push('  body: file, // ' + body.file);
    lines.push('});');
    lines.push('console.log(response.status, await response.text());');
    return lines.join('\n');
  }

  /** `requests` in Python (a JSON string literal is a Python string literal too). */
  function pythonRequests(request) {
    var method = String(request.get('method')).toLowerCase();
    var headers = headersOf(request);
    var body = bodyOf(request);
    var call = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].indexOf(method) >= 0;
    var lines = ['import requests', ''];
    lines.push('response = requests.' + (call ? method + '(' : 'request(' + q(method.toUpperCase()) + ','));
    lines.push('    ' + q(String(request.get('url'))) + ',');
    if (headers.length) {
      lines.push('    headers={');
      headers.forEach(function (pair) {
        lines.push('        ' + q(pair[0]) + ': ' + q(pair[1]) + ',');
      });
      lines.push('    },');
    }
    if (body && body.text !== undefined) lines.push('    data=' + q(body.text) + ',');
    if (body && body.form) {
      lines.push('    files={');
      body.form.forEach(function (pair) {
        lines.push('        ' + q(pair[0]) + ': (None, ' + q(pair[1]) + '),');
      });
      lines.push('    },');
    }
    if (body && body.file) lines.push('    data=open(' + q(body.file) + ', "rb"),');
    lines.push(')');
    lines.push('print(response.status_code, response.text)');
    return lines.join('\n');
  }

  // Swagger UI looks a generator up as fn.requestSnippetGenerator_<key> for each key of requestSnippets.generators.
  function RequestSamplesPlugin() {
    return {
      fn: {
        requestSnippetGenerator_javascript_fetch: javascriptFetch,
        requestSnippetGenerator_python_requests: pythonRequests,
      },
    };
  }

  var markReady;
  var ready = new Promise(function (resolve) {
    markReady = resolve;
  });

  var ui = window.SwaggerUIBundle({
    url: root.getAttribute('data-document'),
    domNode: root,
    // Deep links put an anchor inside each operation's toggle button (nested interactive controls).
    deepLinking: false,
    filter: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    requestSnippetsEnabled: true,
    requestSnippets: {
      generators: {
        curl_bash: { title: 'cURL (bash)', syntax: 'bash' },
        javascript_fetch: { title: 'JavaScript (fetch)', syntax: 'javascript' },
        python_requests: { title: 'Python (requests)', syntax: 'python' },
      },
      defaultExpanded: true,
      // The generators merge with Swagger UI's own (PowerShell and CMD too): these three are shown.
      languages: ['curl_bash', 'javascript_fetch', 'python_requests'],
    },
    plugins: [RequestSamplesPlugin],
    persistAuthorization: false,
    withCredentials: false,
    validatorUrl: null,
    // Plain code blocks: the highlighter's themes colour tokens inline, below the contrast the host asks for.
    syntaxHighlight: { activated: false },
    onComplete: function () {
      // Swagger UI's server picker has no accessible name of its own.
      var servers = root.querySelector('#servers');
      if (servers) servers.setAttribute('aria-label', 'Server');
      markReady();
    },
  });

  // The console-token control (a signed-in person's /docs): asks the host for a token for this API and authorizes
  // Swagger UI with it (HTTP Basic, as a personal access token is), so Try it out works without pasting. The secret
  // stays in this page's memory: not in a URL, not in storage (persistAuthorization is off).
  var consoleForm = document.querySelector('form[data-console-token]');
  if (consoleForm) consoleForm.addEventListener('submit', useConsoleToken);

  function useConsoleToken(event) {
    event.preventDefault();
    var status = consoleForm.querySelector('[data-console-status]');
    var body = new URLSearchParams(new FormData(consoleForm));
    var headers = { Accept: 'application/json' };
    headers[consoleForm.getAttribute('data-csrf-header')] = body.get('_csrf');
    status.textContent = 'Asking for a console token…';
    fetch(consoleForm.getAttribute('action'), {
      method: 'POST',
      credentials: 'same-origin',
      headers: headers,
      body: body,
    })
      .then(function (response) {
        return response.json().then(function (answer) {
          if (!response.ok) throw new Error((answer.errors && answer.errors[0] && answer.errors[0].detail) || '');
          return ready.then(function () {
            return answer;
          });
        });
      })
      .then(function (token) {
        ui.preauthorizeBasic('personal_access_token', token.client_id, token.secret);
        var until = new Date(token.expires_at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
        status.textContent =
          'Try it out now sends requests to ' +
          token.api_prefix +
          ' as you, with a console token valid until ' +
          until +
          '.';
      })
      .catch(function (error) {
        status.textContent = 'No console token was issued. ' + (error.message || 'Reload the page and try again.');
      });
  }

  // The request samples' language tabs are <div onClick>: neither focusable nor operable by keyboard. Each becomes
  // a button (role, tab stop, pressed state); Enter and Space click it, as they would a <button>.
  function finishSampleTabs() {
    root.querySelectorAll('.request-snippets .curl-command .btn').forEach(function (tab) {
      if (!tab.hasAttribute('role')) {
        tab.setAttribute('role', 'button');
        tab.setAttribute('tabindex', '0');
      }
      var pressed = tab.classList.contains('active') ? 'true' : 'false';
      if (tab.getAttribute('aria-pressed') !== pressed) tab.setAttribute('aria-pressed', pressed);
    });
  }
  root.addEventListener('keydown', function (event) {
    var tab = event.target;
    if (!(tab instanceof Element) || !tab.matches('.request-snippets .btn[role=button]')) return;
    if (event.key !== 'Enter' && event.key !== ' ') return;
    event.preventDefault();
    tab.click();
  });

  // What Swagger UI renders later (the document's title, an opened operation, Try it out, a response) lacks four
  // things keyboard and screen-reader users need: the title's level under the page's heading, a name on each
  // parameter's picker, a way to scroll a long code block by keyboard, and sample tabs they can reach.
  function finish() {
    finishSampleTabs();
    // The document's title is Swagger UI's <h1>, under the page's own: a second level, so headings descend in order.
    root.querySelectorAll('.info h1.title:not([aria-level])').forEach(function (title) {
      title.setAttribute('aria-level', '2');
    });
    root.querySelectorAll('tr[data-param-name] select:not([aria-label])').forEach(function (select) {
      select.setAttribute('aria-label', select.closest('tr').getAttribute('data-param-name'));
    });
    root
      .querySelectorAll('.highlight-code > .microlight:not([tabindex]), .curl:not([tabindex])')
      .forEach(function (code) {
        code.setAttribute('tabindex', '0');
      });
  }
  // Attributes too: choosing a sample tab only changes the tabs' classes when the samples read the same.
  new MutationObserver(finish).observe(root, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ['class'],
  });
})();
