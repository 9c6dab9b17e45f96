# median(list): the median of the space-separated numbers in `list`. Shared
# by the benchmark scripts' summaries:
#   awk -f tests/bench/median.awk -f <(echo 'PROGRAM') FILE
function median(list,   v, m, i, j, t) {
  m = split(list, v, " ")
  for (i = 2; i <= m; i++)  # insertion sort: a handful of rounds
    for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
  return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
