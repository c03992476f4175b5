// search.js shows the vector search form's HASH input, labelled with the
// attribute, for a vector index with a HASH element, as the server does
// on load.
(function () {
  var sel = document.getElementById('index');
  if (!sel) return;
  sel.addEventListener('change', function () {
    var o = sel.options[sel.selectedIndex];
    document.getElementById('hashname').textContent = o.dataset.hash;
    var l = document.getElementById('hashlabel');
    l.hidden = !o.dataset.hash;
    if (l.hidden) document.getElementById('hash').value = '';
  });
})();
