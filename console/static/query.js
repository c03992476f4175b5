// query.js relabels the query form's key inputs with the keys of the
// table or index chosen, as the server labels them on load.
(function () {
  var sel = document.getElementById('index');
  if (!sel) return;
  sel.addEventListener('change', function () {
    var o = sel.options[sel.selectedIndex];
    document.getElementById('pkname').textContent = o.dataset.pk;
    document.getElementById('skname').textContent = o.dataset.sk;
    var sk = document.getElementById('sklabel');
    sk.hidden = !o.dataset.sk;
    if (sk.hidden) document.getElementById('op').value = '';
  });
})();
