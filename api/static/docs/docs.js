// Starts Swagger UI on this server's OpenAPI document (no external resources).
window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.spec,
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "BaseLayout",
    validatorUrl: null,
    tryItOutEnabled: false,
    persistAuthorization: false
  });
});
