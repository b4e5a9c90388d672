// Starts Swagger UI on /docs with the document the page names (an external script: the page's CSP allows no
// inline script). The host renders the navigation between APIs; this only mounts the chosen document.
(function () {
  var root = document.getElementById('reference');
  if (!root || typeof window.SwaggerUIBundle !== 'function') return;
  window.SwaggerUIBundle({
    url: root.getAttribute('data-document'),
    domNode: root,
    // Deep links put an anchor inside each operation's toggle button (nested interactive controls).
    deepLinking: false,
    filter: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    requestSnippetsEnabled: true,
    persistAuthorization: false,
    withCredentials: false,
    validatorUrl: null,
    onComplete: function () {
      // Swagger UI's server picker has no accessible name of its own.
      var servers = root.querySelector('#servers');
      if (servers) servers.setAttribute('aria-label', 'Server');
    },
  });
})();
