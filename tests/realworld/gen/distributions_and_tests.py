"""Expected values of tests/realworld/distributions_and_tests.dos, from scipy.stats /
scipy.special (run by hand: python3 tests/realworld/gen/distributions_and_tests.py).
Each block prints DolphinDB assignments that are pasted into the .dos file.

Mapping (DolphinDB argument order -> scipy):
  cdfNormal(mean, sd, X)      norm.cdf(X, mean, sd)        cdfStudent(df, X)    t.cdf(X, df)
  cdfChiSquare(df, X)         chi2.cdf(X, df)              cdfF(d1, d2, X)      f.cdf(X, d1, d2)
  cdfBeta(a, b, X)            beta.cdf(X, a, b)            cdfGamma(k, th, X)   gamma.cdf(X, k, scale=th)
  cdfExp(mean, X)             expon.cdf(X, scale=mean)     cdfUniform(lo, hi, X) uniform.cdf(X, lo, hi-lo)
  cdfLogistic(mu, s, X)       logistic.cdf(X, mu, s)       cdfWeibull(a, b, X)  weibull_min.cdf(X, a, scale=b)
  cdfBinomial(n, p, X)        binom.cdf(X, n, p)           cdfPoisson(m, X)     poisson.cdf(X, m)
  cdfZipf(num, s, X)          zipfian.cdf(X, s, num)       cdfKolmogorov(X)     special.kolmogorov(X)
  inv*(..., p)                the matching .ppf            pdf*(..., X)         the matching .pdf
"""
import numpy as np
from scipy import stats, special


def fmt(v):
    out = []
    for x in np.atleast_1d(v):
        x = float(x)
        if np.isnan(x):
            out.append("NULL")
        elif np.isinf(x):
            out.append("NULL")  # Beluga: a non-finite result of a finite input is NULL
        else:
            out.append(repr(x))
    return "[" + ", ".join(out) + "]"


def rep(x):
    return repr(float(x))


def show(name, v):
    print(f"{name} = {fmt(v)}")


P = np.array([1e-12, 1e-6, 0.001, 0.025, 0.3, 0.5, 0.7, 0.975, 0.999, 1 - 1e-9])

print("// case normal_student_chisquare")
X = np.array([-40.0, -6.5, -1.96, -0.3, 0.0, 0.42, 1.0, 2.5, 8.0])
show("eNormCdf", stats.norm.cdf(X, 1.5, 2.0))
show("eNormInv", stats.norm.ppf(P, 1.5, 2.0))
show("eNormPdf", stats.norm.pdf(X, 1.5, 2.0))
for df in (1, 2, 3.5, 30):
    tag = str(df).replace(".", "_")
    show(f"eTCdf{tag}", stats.t.cdf(X, df))
    show(f"eTInv{tag}", stats.t.ppf(P, df))
XC = np.array([0.0, 1e-5, 0.3, 1.0, 2.7, 7.81, 20.0, 95.0])
for df in (0.7, 3, 12.5, 200):
    tag = str(df).replace(".", "_")
    show(f"eChiCdf{tag}", stats.chi2.cdf(XC, df))
    show(f"eChiInv{tag}", stats.chi2.ppf(P, df))
    show(f"eChiPdf{tag}", stats.chi2.pdf(XC[1:], df))

print("// case f_beta_gamma")
XF = np.array([0.0, 0.01, 0.25, 0.8, 1.0, 1.7, 4.2, 30.0])
for d1, d2 in ((3, 7), (12.5, 1.5), (40, 60)):
    tag = f"{d1}_{d2}".replace(".", "p")
    show(f"eFCdf{tag}", stats.f.cdf(XF, d1, d2))
    show(f"eFInv{tag}", stats.f.ppf(P, d1, d2))
    show(f"eFPdf{tag}", stats.f.pdf(XF[1:], d1, d2))
XB = np.array([-0.5, 0.0, 1e-4, 0.05, 0.3, 0.5, 0.77, 0.999, 1.0, 1.5])
for a, b in ((0.5, 0.5), (2, 5), (30, 0.8), (150, 220)):
    tag = f"{a}_{b}".replace(".", "p")
    show(f"eBetaCdf{tag}", stats.beta.cdf(XB, a, b))
    show(f"eBetaInv{tag}", stats.beta.ppf(P, a, b))
XG = np.array([-1.0, 0.0, 0.002, 0.5, 1.3, 4.0, 11.0, 60.0])
for k, th in ((0.3, 2.0), (1.0, 1.5), (4.5, 0.8), (800, 0.01)):
    tag = f"{k}_{th}".replace(".", "p")
    show(f"eGamCdf{tag}", stats.gamma.cdf(XG, k, scale=th))
    show(f"eGamInv{tag}", stats.gamma.ppf(P, k, scale=th))
show("eGamInvTiny", stats.gamma.ppf([0.5, 0.9], 0.001))

print("// case exp_uniform_logistic_weibull")
XE = np.array([-2.0, 0.0, 0.001, 0.7, 2.0, 5.5, 40.0])
show("eExpCdf", stats.expon.cdf(XE, scale=2.5))
show("eExpInv", stats.expon.ppf(P, scale=2.5))
show("eUniCdf", stats.uniform.cdf(XE, -1.0, 4.0))
show("eUniInv", stats.uniform.ppf(P, -1.0, 4.0))
show("eLogCdf", stats.logistic.cdf(XE, 1.2, 0.7))
show("eLogInv", stats.logistic.ppf(P, 1.2, 0.7))
show("eWeiCdf", stats.weibull_min.cdf(XE, 1.7, scale=2.2))
show("eWeiInv", stats.weibull_min.ppf(P, 1.7, scale=2.2))

print("// case discrete_zipf_kolmogorov")
XD = np.array([-1.0, 0.0, 1.0, 2.5, 4.0, 7.0, 9.99, 12.0, 30.0])
show("eBinCdf", stats.binom.cdf(XD, 20, 0.3))
PD = np.array([0.001, 0.05, 0.3, 0.5, 0.7, 0.95, 0.999999])
show("eBinInv", stats.binom.ppf(PD, 20, 0.3))
show("eBinInvBig", stats.binom.ppf(PD, 100000, 0.37))
show("ePoiCdf", stats.poisson.cdf(XD, 3.7))
show("ePoiInv", stats.poisson.ppf(PD, 3.7))
show("ePoiInvBig", stats.poisson.ppf(PD, 12345.6))
XZ = np.array([0.0, 1.0, 2.0, 3.5, 10.0, 49.0, 50.0, 77.0])
show("eZipfCdf", stats.zipfian.cdf(XZ, 1.3, 50))
XK = np.array([0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0, 1.2, 2.0, 3.0])
show("eKol", special.kolmogorov(XK))

print("// case hypothesis_tests")
x = np.array([2.31, 1.87, 3.02, 2.75, 1.44, 2.98, 3.41, 2.06, 2.62, 1.95, 2.27, 3.15])
y = np.array([1.72, 2.45, 1.31, 2.08, 1.66, 2.91, 1.49, 2.23, 1.88, 1.37])
# fTest(x, y) and fTest(x, y, 1.5, 0.9)
for ratio, conf in ((1.0, 0.95), (1.5, 0.9)):
    d1, d2 = len(x) - 1, len(y) - 1
    est = np.var(x, ddof=1) / np.var(y, ddof=1)
    F = est / ratio
    pl, pg = stats.f.cdf(F, d1, d2), stats.f.sf(F, d1, d2)
    b = (1 - conf) / 2
    q = lambda p: stats.f.ppf(p, d1, d2)
    tag = str(ratio).replace(".", "p")
    print(f"eF{tag} = {rep(F)}")
    show(f"eFP{tag}", [2 * min(pl, pg), pl, pg])
    show(f"eFLo{tag}", [est / q(1 - b), 0.0, est / q(conf)])
    show(f"eFHi{tag}", [est / q(b), est / q(1 - conf)])
# zTest(x, y, 0.1, 0.6, 0.5) and zTest(x, , 2.0, 0.7)
se = np.sqrt(0.6 ** 2 / len(x) + 0.5 ** 2 / len(y))
est = x.mean() - y.mean()
z = (est - 0.1) / se
print(f"eZ2 = {rep(z)}")
show("eZ2P", [2 * stats.norm.sf(abs(z)), stats.norm.cdf(z), stats.norm.sf(z)])
show("eZ2Lo", [est - stats.norm.ppf(0.975) * se, est - stats.norm.ppf(0.95) * se])
show("eZ2Hi", [est + stats.norm.ppf(0.975) * se, est + stats.norm.ppf(0.95) * se])
se1 = 0.7 / np.sqrt(len(x))
z1 = (x.mean() - 2.0) / se1
print(f"eZ1 = {rep(z1)}")
show("eZ1P", [2 * stats.norm.sf(abs(z1)), stats.norm.cdf(z1), stats.norm.sf(z1)])
# chiSquareTest: goodness of fit and independence
obs = np.array([18, 22, 31, 9, 20])
expw = np.array([0.2, 0.2, 0.25, 0.15, 0.2])
r = stats.chisquare(obs, expw * obs.sum() / expw.sum())
print(f"eChiGof = {rep(r.statistic)}\neChiGofP = {rep(r.pvalue)}")
tab = np.array([[762, 327, 468], [484, 239, 477]])
r = stats.chi2_contingency(tab)
print(f"eChiInd = {rep(r.statistic)}\neChiIndP = {rep(r.pvalue)}")
tab2 = np.array([[12, 5], [7, 16]])
r = stats.chi2_contingency(tab2)  # Yates' correction (dof 1)
print(f"eChi22 = {rep(r.statistic)}\neChi22P = {rep(r.pvalue)}")
# ksTest: exact (no ties, 12 x 10) and asymptotic (200 x 150 > 10000 pairs)
r = stats.ks_2samp(x, y, method="exact")
print(f"eKsD = {rep(r.statistic)}\neKsP = {rep(r.pvalue)}")
u = np.arange(200) * 0.731 % 1.0
v = (np.arange(150) * 0.577 % 1.0) ** 1.3
D = stats.ks_2samp(u, v).statistic
en = np.sqrt(200 * 150 / 350)
print(f"eKsBigD = {rep(D)}\neKsBigP = {rep(special.kolmogorov(en * D))}")
# mannWhitneyUTest: U is Y's statistic (pairs y > x), p-values its tails
for name, a, b in (("Mw", x, y), ("MwTie", np.array([5, 1, 4, 3, 5.0]), np.array([2, 4, 7, -1, 0, 4.0]))):
    res = {alt: stats.mannwhitneyu(b, a, use_continuity=True, alternative=alt, method="asymptotic") for alt in ("two-sided", "less", "greater")}
    print(f"e{name}U = {rep(res['less'].statistic)}")
    show(f"e{name}P", [res["two-sided"].pvalue, res["less"].pvalue, res["greater"].pvalue])
    res = {alt: stats.mannwhitneyu(b, a, use_continuity=False, alternative=alt, method="asymptotic") for alt in ("two-sided", "less", "greater")}
    show(f"e{name}PNoCorr", [res["two-sided"].pvalue, res["less"].pvalue, res["greater"].pvalue])
# shapiroTest (scipy's Fortran swilk agrees with the AS R94 port to ~1e-10)
s50 = np.sin(np.arange(1, 51) * 1.7) * 3 + np.arange(1, 51) * 0.05
for name, a in (("Sw12", x), ("Sw50", s50), ("Sw5", np.array([3.1, 2.2, 5.9, 4.4, 4.0])), ("Sw3", np.array([1.0, 2.0, 4.0]))):
    r = stats.shapiro(a)
    print(f"e{name}W = {rep(float(r.statistic))}\ne{name}P = {rep(float(r.pvalue))}")
